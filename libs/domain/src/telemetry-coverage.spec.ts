import { describe, expect, it } from '@jest/globals';
import { coveredMetrics, coversMetric, isOptionalMetric } from './telemetry-coverage.js';
import { TELEMETRY_METRICS } from './telemetry-metrics.js';

const all = Object.fromEntries(TELEMETRY_METRICS.map((m) => [`telemetry.${m}`, 'supported']));

describe('telemetry coverage', () => {
  it('core metrics when selected; optional ones with the opt-in, engineHours only when selected too', () => {
    expect(coveredMetrics({ signals: ['odometer'], extendedTelemetry: false, support: all })).toEqual(['odometer']);
    expect(coveredMetrics({ signals: ['odometer'], extendedTelemetry: true, support: all })).toEqual(['odometer', 'totalIdleTime', 'speed', 'heading', 'fuelPercent', 'batteryVoltage', 'engineState']);
    expect(coveredMetrics({ signals: ['engineHours', 'location'], extendedTelemetry: true, support: all })).toEqual(TELEMETRY_METRICS.filter((m) => m !== 'odometer'));
    expect(coversMetric({ signals: ['engineHours'], extendedTelemetry: false, support: all }, 'engineHours')).toBe(false);
  });

  it('never a metric the provider marks unsupported or does not name', () => {
    const support = { ...all, 'telemetry.totalIdleTime': 'unsupported', 'telemetry.fuelPercent': 'conditional' };
    delete (support as Record<string, string>)['telemetry.heading'];
    expect(coveredMetrics({ signals: [], extendedTelemetry: true, support })).toEqual(['speed', 'fuelPercent', 'batteryVoltage', 'engineState']);
  });

  it('location and odometer are core, everything else optional', () => {
    expect(TELEMETRY_METRICS.filter((m) => !isOptionalMetric(m))).toEqual(['location', 'odometer']);
  });
});
