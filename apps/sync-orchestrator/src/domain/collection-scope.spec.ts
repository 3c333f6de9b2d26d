import { describe, expect, it } from '@jest/globals';
import { faultsSelected, internalPurposes, isExtendedMetric, telemetryMetricsFor, type CollectionConfig } from './collection-scope.js';
import { capabilitiesFor } from '@switchyard/providers';
import { INTERNAL_SYNC_PURPOSES, ALL_SYNC_PURPOSES } from './sync-planner.js';

const support = { 'telemetry.location': 'supported', 'telemetry.odometer': 'conditional', 'telemetry.engineHours': 'conditional', 'faults.open': 'supported' };

describe('collection scope', () => {
  it('collects only the selected telemetry signals, never faults as a metric', () => {
    expect(telemetryMetricsFor({ signals: ['odometer', 'faults'], extendedTelemetry: true, support })).toEqual(['odometer']);
    expect(telemetryMetricsFor({ signals: [], extendedTelemetry: true, support })).toEqual([]);
    expect(telemetryMetricsFor({ signals: ['location', 'odometer', 'engineHours'], extendedTelemetry: true, support })).toEqual(['location', 'odometer', 'engineHours']);
  });

  it('needs the extended telemetry opt-in for engineHours', () => {
    expect(telemetryMetricsFor({ signals: ['engineHours', 'location'], extendedTelemetry: false, support })).toEqual(['location']);
    expect(isExtendedMetric('engineHours')).toBe(true);
    expect(isExtendedMetric('odometer')).toBe(false);
  });

  // Issue 31: the opt-in was recorded but changed nothing fetched. Mutation tried: telemetryMetricsFor
  // keeping only selected signals again fails this test.
  it('with the opt-in collects every optional metric the provider supports, whatever the signals', () => {
    const samsara = capabilitiesFor('samsara').fields;
    const optional = ['totalIdleTime', 'speed', 'heading', 'fuelPercent', 'batteryVoltage', 'engineState'];
    expect(telemetryMetricsFor({ signals: ['odometer', 'location'], extendedTelemetry: true, support: samsara })).toEqual(['location', 'odometer', ...optional]);
    expect(telemetryMetricsFor({ signals: ['faults'], extendedTelemetry: true, support: samsara })).toEqual(optional);
    expect(telemetryMetricsFor({ signals: ['odometer', 'location'], extendedTelemetry: false, support: samsara })).toEqual(['location', 'odometer']);
    // Motive and Geotab have no cumulative idle counter: totalIdleTime is never asked of them.
    for (const provider of ['motive', 'geotab'] as const) {
      expect(telemetryMetricsFor({ signals: ['odometer', 'engineHours'], extendedTelemetry: true, support: capabilitiesFor(provider).fields })).toEqual([
        'odometer',
        'engineHours',
        ...optional.filter((m) => m !== 'totalIdleTime'),
      ]);
    }
  });

  it('skips metrics the provider does not support', () => {
    expect(telemetryMetricsFor({ signals: ['location', 'odometer'], extendedTelemetry: false, support: { ...support, 'telemetry.odometer': 'unsupported' } })).toEqual(['location']);
  });

  it('collects faults only when selected and listable', () => {
    expect(faultsSelected({ signals: ['faults'], extendedTelemetry: false, support })).toBe(true);
    expect(faultsSelected({ signals: ['odometer'], extendedTelemetry: false, support })).toBe(false);
    expect(faultsSelected({ signals: ['faults'], extendedTelemetry: false, support: { 'faults.open': 'unsupported' } })).toBe(false);
  });
});

describe('internalPurposes', () => {
  const config: CollectionConfig = {
    purposes: { vehicles: true, groupMemberships: false, trips: true },
    selectedSignals: ['odometer', 'faults'],
    optIns: { extendedTelemetry: false },
    approvedVehicleIds: ['v1'],
  };

  it('keeps what there is something to collect for, in plan order', () => {
    expect(internalPurposes([...ALL_SYNC_PURPOSES].reverse(), config, support, false)).toEqual(['vehicles', 'trips', 'drivers', 'groups', 'telemetryLatest', 'telemetryHistory', 'faults']);
  });

  it('plans telemetry for the opt-in alone when the provider has optional metrics', () => {
    const optedIn = { ...config, selectedSignals: ['faults'], optIns: { extendedTelemetry: true } };
    expect(internalPurposes([...INTERNAL_SYNC_PURPOSES], optedIn, capabilitiesFor('samsara').fields, false)).toEqual(['drivers', 'groups', 'telemetryLatest', 'telemetryHistory', 'faults']);
  });

  it('drops telemetry without a collectable selected metric and faults without the faults signal', () => {
    expect(internalPurposes([...INTERNAL_SYNC_PURPOSES], { ...config, selectedSignals: ['engineHours'] }, support, false)).toEqual(['drivers', 'groups']);
    expect(internalPurposes([...INTERNAL_SYNC_PURPOSES], { ...config, selectedSignals: ['engineHours'], optIns: { extendedTelemetry: true } }, support, false)).toEqual([
      'drivers',
      'groups',
      'telemetryLatest',
      'telemetryHistory',
    ]);
  });

  it('drops windowed purposes for an empty interval and per-vehicle ones without approved vehicles', () => {
    expect(internalPurposes([...ALL_SYNC_PURPOSES], config, support, true)).toEqual(['vehicles', 'drivers', 'groups', 'telemetryLatest', 'faults']);
    expect(internalPurposes([...ALL_SYNC_PURPOSES], { ...config, approvedVehicleIds: [] }, support, false)).toEqual(['drivers', 'groups']);
  });
});
