/**
 * Faults normalized in the two models providers have (Capabilities.faultModel):
 * - `complete_snapshot` (Samsara, Motive): the full set of codes active on a vehicle at a time; a
 *   code absent from the next snapshot has cleared;
 * - `explicit_records` (Geotab): one record per observed fault occurrence; clearing is derived.
 * `faultKey` identifies a fault within a vehicle across snapshots (protocol + code + FMI, etc.).
 */
import type { Provider } from '../providers.js';

export interface FaultCode {
  readonly faultKey: string;
  readonly code: string;
  readonly description: string | null;
  /**
   * J1939 occurrence count as the provider reports it for this observation (Samsara j1939
   * `occurrenceCount`, Motive `occurrence_count`, Geotab FaultData `count`); absent when not
   * reported. Not part of the identity.
   */
  readonly occurrenceCount?: number;
}

export interface FaultSnapshot {
  readonly model: 'complete_snapshot';
  readonly provider: Provider;
  readonly vehicleSourceId: string;
  readonly observedAt: string;
  readonly active: readonly FaultCode[];
  readonly fetchedAt: string;
}

export interface FaultRecord extends FaultCode {
  readonly model: 'explicit_records';
  readonly provider: Provider;
  readonly sourceId: string;
  readonly vehicleSourceId: string;
  readonly observedAt: string;
  /** Provider state, e.g. Geotab `Active`, `Pending`, `Inactive`; null when not reported. */
  readonly providerState: string | null;
  readonly dismissedAt: string | null;
  readonly fetchedAt: string;
}
