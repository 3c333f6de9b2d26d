/**
 * What a connection's selected signals let the collectors collect (pure; used by the internal-run
 * planning in SyncLifecycleService.createInternal and by the collectors at lease time).
 *
 * Decisions:
 * - an internal run keeps only the purposes with something to collect (`internalPurposes`);
 * - the signals `odometer`, `engineHours` and `location` are telemetry metric names
 *   (libs/domain telemetry-metrics.ts); only selected ones are collected, and a signal not
 *   selected is never asked of the provider;
 * - `location` and `odometer` are core telemetry (CORE_TELEMETRY_METRICS); any other metric
 *   (`engineHours`) is extended telemetry and is collected only with the connection's
 *   `extendedTelemetry` opt-in (spec: "Extended telemetry needs explicit opt-in");
 * - a metric the provider marks `unsupported` (capability `telemetry.<metric>`) is not asked;
 * - `faults` is collected only when selected and the provider can list open faults (`faults.open`);
 * - health scope: telemetry work that included an extended metric is also an `extended`
 *   observation (the gateway's `extended_*` fields); everything else is `core`.
 * - the scheduler's runs are stored with origin SCHEDULED_ORIGIN (`scheduled`; the partial index
 *   of open scheduled runs, migration 0008, names it).
 * The collectors re-evaluate this against the connection's CURRENT configuration when they lease a
 * unit, so a signal deselected after planning stops being collected at once (its unit completes
 * with an empty final batch: nothing written, never zeros).
 */
import { CORE_TELEMETRY_METRICS, isTelemetryMetric, type TelemetryMetric } from '@switchyard/domain';
import { ALL_SYNC_PURPOSES, isPublicPurpose, WINDOWED_PURPOSES, CONNECTION_PURPOSES, type PublicSyncPurpose, type SyncPurpose } from './sync-planner.js';

/** `sync.origin` of the scheduler's runs: the one origin value of scheduled collection. */
export const SCHEDULED_ORIGIN = 'scheduled';

export interface SignalSelection {
  /** The connection's `selectedSignals`. */
  readonly signals: readonly string[];
  /** The connection's `optIns.extendedTelemetry`. */
  readonly extendedTelemetry: boolean;
  /** The provider's capability support per field. */
  readonly support: Readonly<Record<string, string>>;
}

const supported = (support: Readonly<Record<string, string>>, field: string) => (support[field] ?? 'unsupported') !== 'unsupported';

export const isExtendedMetric = (metric: TelemetryMetric): boolean => !(CORE_TELEMETRY_METRICS as readonly TelemetryMetric[]).includes(metric);

/** The telemetry metrics to collect, in the signals' order, without duplicates. */
export function telemetryMetricsFor(selection: SignalSelection): TelemetryMetric[] {
  const metrics = selection.signals.filter(isTelemetryMetric).filter((m) => (!isExtendedMetric(m) || selection.extendedTelemetry) && supported(selection.support, `telemetry.${m}`));
  return [...new Set(metrics)];
}

export function faultsSelected(selection: SignalSelection): boolean {
  return selection.signals.includes('faults') && supported(selection.support, 'faults.open');
}

/** The parts of a connection's configuration an internal run's purposes depend on. */
export interface CollectionConfig {
  readonly purposes: Readonly<Record<PublicSyncPurpose, boolean>>;
  readonly selectedSignals: readonly string[];
  readonly optIns: { readonly extendedTelemetry: boolean };
  readonly approvedVehicleIds: readonly string[];
}

/**
 * The asked purposes an internal run keeps, in plan order: public ones only while enabled on the
 * connection; `drivers`, `groups` always; telemetry only with at least one collectable selected
 * metric; faults only with the `faults` signal; per-vehicle purposes only with approved vehicles;
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
