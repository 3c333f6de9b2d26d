import { describe, expect, it } from '@jest/globals';
import { faultsSelected, internalPurposes, isExtendedMetric, telemetryMetricsFor, type CollectionConfig } from './collection-scope.js';
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
