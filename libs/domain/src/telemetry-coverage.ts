/**
 * Which telemetry metrics a connection covers: the one rule the sync-orchestrator collects by
 * (scheduled collection, history, refresh) and telemetry-ingest reads by (which optional status
 * objects a Telemetry carries), so what is served is exactly what is collected.
 *
 * - core metrics (`location`, `odometer`) are selectable signals: collected only when selected (a
 *   read always shows them, `missing` when never collected);
 * - every other metric is optional (extended telemetry, spec: "Extended telemetry needs explicit
 *   opt-in"): covered only with the connection's `extendedTelemetry` opt-in. One that is also a
 *   selectable signal (`engineHours`) must be selected besides; the others (`totalIdleTime`,
 *   `speed`, `heading`, `fuelPercent`, `batteryVoltage`, `engineState`) have no signal of their own
 *   and come with the opt-in alone (decision 0019);
 * - a metric the provider marks `unsupported` (capability `telemetry.<metric>`, or no entry) is
 *   never covered: it is never asked of the provider and never shown;
 * - `faults` is collected only when selected and the provider can list open faults (`faults.open`):
 *   `faultsSelected`, the collectors' rule and the freshness read's.
 */
import { SELECTED_SIGNALS } from './connection-config.js';
import { CORE_TELEMETRY_METRICS, TELEMETRY_METRICS, type TelemetryMetric } from './telemetry-metrics.js';

export interface TelemetryCoverage {
  /** The connection's `selectedSignals`. */
  readonly signals: readonly string[];
  /** The connection's `optIns.extendedTelemetry`. */
  readonly extendedTelemetry: boolean;
  /** The provider's capability support per field (`telemetry.<metric>` → supported | conditional | unsupported). */
  readonly support: Readonly<Record<string, string>>;
}

/** Every metric but `location` and `odometer`: extended telemetry. */
export const isOptionalMetric = (metric: TelemetryMetric): boolean => !(CORE_TELEMETRY_METRICS as readonly TelemetryMetric[]).includes(metric);

const isSignal = (metric: TelemetryMetric): boolean => (SELECTED_SIGNALS as readonly string[]).includes(metric);

/** Whether the connection covers `metric` (see the header). */
export function coversMetric(coverage: TelemetryCoverage, metric: TelemetryMetric): boolean {
  if ((coverage.support[`telemetry.${metric}`] ?? 'unsupported') === 'unsupported') return false;
  if (isOptionalMetric(metric) && !coverage.extendedTelemetry) return false;
  return !isSignal(metric) || coverage.signals.includes(metric);
}

/** The metrics the connection covers, in TELEMETRY_METRICS order. */
export function coveredMetrics(coverage: TelemetryCoverage): TelemetryMetric[] {
  return TELEMETRY_METRICS.filter((metric) => coversMetric(coverage, metric));
}

/** Whether the connection's faults are collected: the `faults` signal selected and `faults.open` supported (see the header). */
export function faultsSelected(coverage: TelemetryCoverage): boolean {
  return coverage.signals.includes('faults') && (coverage.support['faults.open'] ?? 'unsupported') !== 'unsupported';
}
