/**
 * What a connection's selected signals let the collectors collect (pure; used by the internal-run
 * planning in SyncLifecycleService.createInternal and by the collectors at lease time).
 *
 * Decisions:
 * - an internal run keeps only the purposes with something to collect (`internalPurposes`);
 * - the telemetry metrics collected are the ones the connection covers (libs/domain
 *   telemetry-coverage.ts, the rule telemetry-ingest's reads apply too): `location` and `odometer`
 *   when selected; with the `extendedTelemetry` opt-in also `engineHours` when selected and every
 *   optional metric without a signal of its own (`totalIdleTime`, `speed`, `heading`,
 *   `fuelPercent`, `batteryVoltage`, `engineState`); never one the provider marks `unsupported`.
 *   A metric not covered is never asked of the provider;
 * - `faults` is collected only when selected and the provider can list open faults (`faults.open`);
 * - health scope: telemetry work that included an extended metric is also an `extended`
 *   observation (the gateway's `extended_*` fields); everything else is `core`. The collectors ask
 *   core and extended metrics in two lanes (telemetry-lanes.ts), so an extended failure is
 *   reported under `extended` only.
 * - the scheduler's runs are stored with origin SCHEDULED_ORIGIN (`scheduled`; the partial index
 *   of open scheduled runs, migration 0008, names it).
 * The collectors re-evaluate this against the connection's CURRENT configuration when they lease a
 * unit, so a signal deselected after planning stops being collected at once (its unit completes
 * with an empty final batch: nothing written, never zeros).
 */
import { coveredMetrics, faultsSelected, isOptionalMetric, type TelemetryCoverage, type TelemetryMetric } from '@switchyard/domain';
import { ALL_SYNC_PURPOSES, isPublicPurpose, WINDOWED_PURPOSES, CONNECTION_PURPOSES, type PublicSyncPurpose, type SyncPurpose } from './sync-planner.js';

/** `sync.origin` of the scheduler's runs: the one origin value of scheduled collection. */
export const SCHEDULED_ORIGIN = 'scheduled';

/** The connection's selected signals, extended-telemetry opt-in and provider support. */
export type SignalSelection = TelemetryCoverage;


export const isExtendedMetric = isOptionalMetric;

/** The telemetry metrics to collect (the connection's covered ones), in TELEMETRY_METRICS order. */
export function telemetryMetricsFor(selection: SignalSelection): TelemetryMetric[] {
  return coveredMetrics(selection);
}

/** libs/domain's rule (telemetry-coverage.ts), which the freshness read applies too. */
export { faultsSelected };

/** The parts of a connection's configuration an internal run's purposes depend on. */
export interface CollectionConfig {
  readonly purposes: Readonly<Record<PublicSyncPurpose, boolean>>;
  readonly selectedSignals: readonly string[];
  readonly optIns: { readonly extendedTelemetry: boolean };
  readonly approvedVehicleIds: readonly string[];
}

/**
 * The asked purposes an internal run keeps, in plan order: public ones only while enabled on the
 * connection; `drivers`, `groups` always; telemetry only with at least one covered metric; faults only with the `faults` signal; per-vehicle purposes only with approved vehicles;
 * windowed ones (`trips`, `telemetryHistory`) only for a non-empty interval.
 */
export function internalPurposes(asked: readonly SyncPurpose[], config: CollectionConfig, support: Readonly<Record<string, string>>, emptyInterval: boolean): SyncPurpose[] {
  const selection: SignalSelection = { signals: config.selectedSignals, extendedTelemetry: config.optIns.extendedTelemetry, support };
  return ALL_SYNC_PURPOSES.filter((p) => {
    if (!asked.includes(p)) return false;
    if (isPublicPurpose(p) && !config.purposes[p]) return false;
    if (CONNECTION_PURPOSES.includes(p)) return true;
    if (config.approvedVehicleIds.length === 0) return false;
    if (WINDOWED_PURPOSES.includes(p) && emptyInterval) return false;
    if (p === 'telemetryLatest' || p === 'telemetryHistory') return telemetryMetricsFor(selection).length > 0;
    if (p === 'faults') return faultsSelected(selection);
    return true;
  });
}
