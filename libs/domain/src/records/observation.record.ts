/**
 * One telemetry observation, normalized (spec 2.10): meters, seconds, m/s, volts, percent,
 * degrees. `source` names the provider field (e.g. `samsara:obdOdometerMeters`); `units` is present
 * when the source unit differed (spec 2.1). Absent readings are simply not emitted — an observation
 * always carries a real value.
 */
import type { EngineState, TelemetryMetric } from '../telemetry-metrics.js';
import type { Provider } from '../providers.js';
import type { UnitConversion } from '../units.js';
import type { LatLon } from './trip.record.js';

export interface MetricValues {
  location: LatLon;
  odometer: { meters: number };
  engineHours: { seconds: number };
  totalIdleTime: { seconds: number };
  speed: { value: number };
  heading: { value: number };
  fuelPercent: { value: number };
  batteryVoltage: { value: number };
  engineState: { state: EngineState };
}

export type Observation = {
  [M in TelemetryMetric]: {
    readonly provider: Provider;
    readonly vehicleSourceId: string;
    readonly metric: M;
    readonly value: MetricValues[M];
    readonly source: string;
    readonly observedAt: string;
    readonly fetchedAt: string;
    readonly units?: UnitConversion;
  };
}[TelemetryMetric];
