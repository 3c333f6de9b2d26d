/**
 * The telemetry metrics of spec 2.10, in the spec's order, and the engine states. Invariant: this is
 * the one list of metric names; Telemetry, HistoryPoint.metric, the catalog fields and each provider's
 * capability table are all keyed by `TelemetryMetric`.
 */
export const TELEMETRY_METRICS = [
  'location',
  'odometer',
  'engineHours',
  'totalIdleTime',
  'speed',
  'heading',
  'fuelPercent',
  'batteryVoltage',
  'engineState',
] as const;
export type TelemetryMetric = (typeof TELEMETRY_METRICS)[number];

/** Telemetry requires these two status objects; the rest are optional (extended telemetry). */
export const CORE_TELEMETRY_METRICS = ['location', 'odometer'] as const satisfies readonly TelemetryMetric[];

export const ENGINE_STATES = ['on', 'off', 'idle'] as const;
export type EngineState = (typeof ENGINE_STATES)[number];

export const isTelemetryMetric = (v: unknown): v is TelemetryMetric =>
  typeof v === 'string' && (TELEMETRY_METRICS as readonly string[]).includes(v);
