import { describe, expect, it } from '@jest/globals';
import { defaultConnectionConfig, type ConnectionConfig } from '@switchyard/domain';
import { collectionStopReason, nextDueAt, runInterval, scheduleDecision, scheduledPurposes, windowStatus, type ScheduleWindowSettings } from './schedule-window.js';

const WINDOW = 300_000;
const settings: ScheduleWindowSettings = { windowMs: WINDOW, firstLookbackMs: WINDOW, maxCatchUpMs: 86_400_000 };
const now = new Date('2026-11-22T12:00:00.000Z');
const at = (offsetMs: number) => new Date(now.getTime() + offsetMs);

const config: ConnectionConfig = {
  ...defaultConnectionConfig('7c0e7a4e-2f0b-4d57-9d5e-5b2b8f1d9a01', 'samsara', 'sandbox', now),
  unifiedCollection: true,
  purposes: { vehicles: true, groupMemberships: false, trips: true },
  approvedVehicleIds: ['v1'],
};
const SUPPORTED = { 'vehicle.name': 'supported', 'vehicle.groups': 'supported', 'trip.startedAt': 'supported', 'trip.endedAt': 'conditional' };

describe('nextDueAt', () => {
  it('is one window after a due time that has just passed', () => {
    expect(nextDueAt(at(-1_000), now, WINDOW)).toEqual(at(WINDOW - 1_000));
  });

  it('stays on the grid and skips missed windows instead of piling them up', () => {
    // Due 3.5 windows ago: the next due time is the grid point half a window ahead, not four runs now.
    expect(nextDueAt(at(-3.5 * WINDOW), now, WINDOW)).toEqual(at(0.5 * WINDOW));
  });

  it('is strictly after now when now is exactly on the grid', () => {
    expect(nextDueAt(at(-2 * WINDOW), now, WINDOW)).toEqual(at(WINDOW));
  });

  it('is one window after a due time still ahead', () => {
    expect(nextDueAt(at(10_000), now, WINDOW)).toEqual(at(WINDOW + 10_000));
  });

  it('refuses a window that is not positive', () => {
    expect(() => nextDueAt(now, now, 0)).toThrow(RangeError);
  });
});

describe('runInterval', () => {
  it('reaches back the first lookback for a connection never collected', () => {
    expect(runInterval(null, undefined, now, settings)).toEqual({ startFrom: at(-WINDOW), intervalEnd: now });
  });

  it('starts where the last created run ended, so runs are contiguous', () => {
    const previous = { status: 'completed' as const, startFrom: at(-2 * WINDOW), intervalEnd: at(-WINDOW) };
    expect(runInterval(at(-WINDOW), previous, now, settings)).toEqual({ startFrom: at(-WINDOW), intervalEnd: now });
  });

  it('covers a skipped stretch (paused, gate closed) from the last covered end', () => {
    expect(runInterval(at(-5 * WINDOW), { status: 'completed', startFrom: at(-6 * WINDOW), intervalEnd: at(-5 * WINDOW) }, now, settings).startFrom).toEqual(at(-5 * WINDOW));
  });

  it('covers a failed run again from its own start', () => {
    const previous = { status: 'failed' as const, startFrom: at(-2 * WINDOW), intervalEnd: at(-WINDOW) };
    expect(runInterval(at(-WINDOW), previous, now, settings).startFrom).toEqual(at(-2 * WINDOW));
  });

  it('never starts earlier than the catch-up limit', () => {
    expect(runInterval(at(-10 * 86_400_000), undefined, now, settings).startFrom).toEqual(at(-86_400_000));
    expect(runInterval(null, undefined, now, { ...settings, firstLookbackMs: 3 * 86_400_000 }).startFrom).toEqual(at(-86_400_000));
  });

  it('is empty, never reversed, when nothing is to be looked back', () => {
    expect(runInterval(null, undefined, now, { ...settings, firstLookbackMs: 0 })).toEqual({ startFrom: now, intervalEnd: now });
    expect(runInterval(at(5_000), undefined, now, settings).startFrom).toEqual(now);
  });
});

describe('scheduledPurposes', () => {
  it('takes the purposes enabled on the connection', () => {
    expect(scheduledPurposes(config, SUPPORTED)).toEqual(['vehicles', 'trips']);
  });

  it('leaves out a purpose the provider cannot serve instead of blocking the schedule', () => {
    expect(scheduledPurposes({ ...config, purposes: { vehicles: true, groupMemberships: true, trips: true } }, { ...SUPPORTED, 'vehicle.groups': 'unsupported' })).toEqual(['vehicles', 'trips']);
  });
});

describe('scheduledPurposes with signals', () => {
  const FULL = { ...SUPPORTED, 'driver.status': 'supported', 'group.name': 'supported', 'telemetry.odometer': 'supported', 'telemetry.engineHours': 'supported', 'faults.open': 'supported' };

  it('adds drivers, groups, latest and history telemetry of the selected signals and faults', () => {
    expect(scheduledPurposes({ ...config, selectedSignals: ['odometer', 'faults'] }, FULL)).toEqual(['vehicles', 'trips', 'drivers', 'groups', 'telemetryLatest', 'telemetryHistory', 'faults']);
  });

  it('collects no telemetry for an extended metric without the opt-in, and no faults unless selected', () => {
    expect(scheduledPurposes({ ...config, selectedSignals: ['engineHours'] }, FULL)).toEqual(['vehicles', 'trips', 'drivers', 'groups']);
    expect(scheduledPurposes({ ...config, selectedSignals: ['engineHours'], optIns: { ...config.optIns, extendedTelemetry: true } }, FULL)).toEqual([
      'vehicles',
      'trips',
      'drivers',
      'groups',
      'telemetryLatest',
      'telemetryHistory',
    ]);
  });

  it('is not gated by the public purpose flags: all off still collects the signals of the approved vehicles', () => {
    expect(scheduledPurposes({ ...config, purposes: { vehicles: false, groupMemberships: false, trips: false }, selectedSignals: ['faults'] }, FULL)).toEqual(['drivers', 'groups', 'faults']);
  });
});

describe('scheduleDecision', () => {
  const purposes = ['vehicles', 'trips'] as const;

  it('creates a run with the purposes when everything is open', () => {
    expect(scheduleDecision({ config, purposes, previousStatus: undefined })).toEqual({ action: 'create', purposes });
    expect(scheduleDecision({ config, purposes, previousStatus: 'completed' })).toEqual({ action: 'create', purposes });
    expect(scheduleDecision({ config, purposes, previousStatus: 'failed' })).toEqual({ action: 'create', purposes });
  });

  it.each([
    ['paused', { status: 'paused' as const }, 'connection_paused'],
    ['disconnected', { status: 'disconnected' as const }, 'connection_disconnected'],
    ['gate closed', { unifiedCollection: false }, 'collection_gate_closed'],
    ['no approved vehicle', { approvedVehicleIds: [] }, 'no_approved_vehicle'],
  ])('skips when %s', (_name, change, reason) => {
    expect(scheduleDecision({ config: { ...config, ...change }, purposes, previousStatus: undefined })).toEqual({ action: 'skip', reason });
  });

  it('skips with no purpose to collect', () => {
    expect(scheduleDecision({ config, purposes: [], previousStatus: undefined })).toEqual({ action: 'skip', reason: 'no_purpose_enabled' });
  });

  it.each(['requested', 'in_progress'] as const)('skips while the previous scheduled run is %s (no pile-up)', (previousStatus) => {
    expect(scheduleDecision({ config, purposes, previousStatus })).toEqual({ action: 'skip', reason: 'previous_run_open' });
  });

  it('names a stopped connection before an open previous run', () => {
    expect(scheduleDecision({ config: { ...config, status: 'paused' }, purposes, previousStatus: 'in_progress' })).toEqual({ action: 'skip', reason: 'connection_paused' });
  });
});

describe('collectionStopReason', () => {
  it('is undefined only for an active connection with the gate open', () => {
    expect(collectionStopReason({ status: 'active', unifiedCollection: true })).toBeUndefined();
    expect(collectionStopReason({ status: 'active', unifiedCollection: false })).toBe('collection_gate_closed');
    expect(collectionStopReason({ status: 'paused', unifiedCollection: false })).toBe('connection_paused');
  });
});

describe('windowStatus (the parts of one window)', () => {
  it('is the one run\'s status for a one-run window, and nothing for no run', () => {
    for (const status of ['requested', 'in_progress', 'completed', 'failed'] as const) expect(windowStatus([status])).toBe(status);
    expect(windowStatus([])).toBeUndefined();
  });

  it('is open while any part is open, even when another part already failed', () => {
    expect(windowStatus(['completed', 'requested', 'completed'])).toBe('requested');
    expect(windowStatus(['failed', 'requested', 'in_progress'])).toBe('in_progress');
    expect(scheduleDecision({ config, purposes: ['vehicles'], previousStatus: windowStatus(['completed', 'failed', 'requested']) })).toEqual({ action: 'skip', reason: 'previous_run_open' });
  });

  it('is failed when any settled part failed, so the whole window is covered again from its start', () => {
    expect(windowStatus(['completed', 'failed', 'completed'])).toBe('failed');
    const window = { status: windowStatus(['completed', 'failed'])!, startFrom: at(-2 * WINDOW), intervalEnd: at(-WINDOW) };
    expect(runInterval(at(-WINDOW), window, now, settings).startFrom).toEqual(at(-2 * WINDOW));
  });

  it('is completed only when every part completed', () => {
    expect(windowStatus(['completed', 'completed', 'completed'])).toBe('completed');
  });
});
