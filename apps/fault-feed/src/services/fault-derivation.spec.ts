/** The fault derivation rules, one scenario each, without a database. */
import { describe, expect, it } from '@jest/globals';
import type { FaultRecordV1, FaultSnapshotV1 } from '@switchyard/messaging';
import { FAULT_INACTIVITY_TIMEOUT_MS as INACTIVITY_TIMEOUT_MS } from '@switchyard/contracts';
import { deriveFromRecords, deriveFromSnapshots, occurrenceKey, type FaultState } from './fault-derivation.js';

const empty = (): FaultState => ({ open: new Map(), watch: new Map(), lastCleared: new Map() });
const snap = (observedAt: string, keys: string[]): FaultSnapshotV1 => ({
  model: 'complete_snapshot',
  provider: 'samsara',
  vehicleSourceId: 'v1',
  observedAt,
  active: keys.map((k) => ({ faultKey: k, code: k, description: null })),
  fetchedAt: observedAt,
});
const rec = (key: string, observedAt: string, dismissedAt: string | null = null): FaultRecordV1 => ({
  faultKey: key,
  code: key,
  description: null,
  model: 'explicit_records',
  provider: 'geotab',
  sourceId: `${key}@${observedAt}`,
  vehicleSourceId: 'b3',
  observedAt,
  providerState: null,
  dismissedAt,
  fetchedAt: observedAt,
});
const summary = (d: ReturnType<typeof deriveFromSnapshots>) => d.transitions.map((t) => `${t.kind}:${t.occurrence.faultKey}@${t.observedAt.slice(11, 16)}${t.bootstrap ? ':bootstrap' : ''}`);

describe('deriveFromSnapshots', () => {
  it('opens with bootstrap on the first snapshot, clears absent keys, reopens as a new occurrence', () => {
    const state = empty();
    const d = deriveFromSnapshots(state, [snap('2026-03-01T10:00:00.000Z', ['a']), snap('2026-03-01T11:00:00.000Z', []), snap('2026-03-01T12:00:00.000Z', ['a'])]);
    expect(summary(d)).toEqual(['opened:a@10:00:bootstrap', 'cleared:a@11:00', 'opened:a@12:00']);
    expect(d.changed).toHaveLength(2);
    expect(d.watch.get('vehicle:v1')).toBe('2026-03-01T12:00:00.000Z');
  });

  it('ignores snapshots not later than the last applied one (order of arrival does not matter)', () => {
    const state = empty();
    state.watch.set('vehicle:v1', '2026-03-01T12:00:00.000Z');
    expect(deriveFromSnapshots(state, [snap('2026-03-01T12:00:00.000Z', ['x']), snap('2026-03-01T09:00:00.000Z', ['y'])]).transitions).toEqual([]);
  });
});

describe('occurrence count', () => {
  it('keeps the count of the latest observation that reported one', () => {
    const state = empty();
    const j = (count?: number) => ({ faultKey: 'j', code: 'J', description: null, ...(count === undefined ? {} : { occurrenceCount: count }) });
    const first = deriveFromSnapshots(state, [{ ...snap('2026-03-01T10:00:00.000Z', []), active: [j(2)] }]);
    expect(first.changed[0]?.occurrenceCount).toBe(2);
    const occurrence = first.changed[0]!;
    state.open.set(occurrenceKey('v1', 'j'), occurrence);
    deriveFromSnapshots(state, [{ ...snap('2026-03-01T11:00:00.000Z', []), active: [j(5)] }]);
    expect(occurrence.occurrenceCount).toBe(5);
    deriveFromSnapshots(state, [{ ...snap('2026-03-01T12:00:00.000Z', []), active: [j()] }]);
    expect(occurrence.occurrenceCount).toBe(5);
  });
});

describe('deriveFromRecords', () => {
  it('opens on the first record (bootstrap on the first batch, when we first watched), a repeat only moves last_observed_at', () => {
    const d = deriveFromRecords(empty(), [rec('k', '2026-03-01T07:00:00.000Z'), rec('k', '2026-03-02T07:00:00.000Z')], '2026-03-02T08:00:00.000Z');
    expect(summary(d)).toEqual(['opened:k@08:00:bootstrap']);
    expect(d.changed[0]?.lastObservedAt).toBe('2026-03-02T07:00:00.000Z');
    const later = deriveFromRecords({ ...empty(), watch: new Map([['explicit', '2026-03-02T07:00:00.000Z']]) }, [rec('k', '2026-03-03T07:00:00.000Z')], '2026-03-03T08:00:00.000Z');
    expect(summary(later)).toEqual(['opened:k@07:00']);
  });

  // mutation: no `watchedFrom` at the end of a bootstrap pass → k1 opens at its first record (03-01 07:00), k2 and k3 open and clear: this fails.
  it('a bootstrap pass opens what is still active at the end of the window read, at that time; what opened and cleared inside it is history', () => {
    const asOf = '2026-03-08T06:00:00.000Z';
    const records = [
      rec('k1', '2026-03-01T07:00:00.000Z'),
      rec('k1', '2026-03-05T07:00:00.000Z'),
      rec('k2', '2026-03-01T05:00:00.000Z'), // last record more than 7 days before asOf: cleared before we watched
      rec('k3', '2026-03-02T07:00:00.000Z', '2026-03-03T07:00:00.000Z'), // dismissed before we watched
    ];
    const d = deriveFromRecords(empty(), records, '2026-03-08T06:00:05.000Z', 'sync_01JD0000000000000000000001', asOf);
    expect(d.transitions.map((t) => [t.kind, t.occurrence.faultKey, t.observedAt, t.bootstrap])).toEqual([['opened', 'k1', asOf, true]]);
    expect(d.changed.map((o) => [o.faultKey, o.openedAt, o.lastObservedAt])).toEqual([['k1', asOf, '2026-03-05T07:00:00.000Z']]);
  });

  // mutation: the timeout measured against the batch's fetchedAt → the occurrence clears although its window ended before the expiry: this fails.
  it('measures the inactivity timeout against the end of the window read, not the fetch time', () => {
    const state = empty();
    for (const [scope, at] of deriveFromRecords(state, [rec('k', '2026-03-01T07:00:00.000Z')], '2026-03-01T08:00:00.000Z').watch) state.watch.set(scope, at);
    const d = deriveFromRecords(state, [], '2026-03-08T07:30:00.000Z', null, '2026-03-08T06:59:59.000Z');
    expect(d.transitions).toEqual([]);
  });

  it('bootstraps every batch of the first pass (one batch per vehicle, one sync), not the later passes', () => {
    const state = empty();
    const a = deriveFromRecords(state, [rec('k', '2026-03-01T07:00:00.000Z')], '2026-03-01T08:00:00.000Z', 'sync_01JD0000000000000000000001');
    for (const [scope, at] of a.watch) state.watch.set(scope, at);
    const b = deriveFromRecords(state, [{ ...rec('k', '2026-03-01T07:30:00.000Z'), vehicleSourceId: 'v2' }], '2026-03-01T08:00:01.000Z', 'sync_01JD0000000000000000000001');
    for (const [scope, at] of b.watch) state.watch.set(scope, at);
    const c = deriveFromRecords(state, [{ ...rec('k2', '2026-03-02T07:00:00.000Z'), vehicleSourceId: 'v3' }], '2026-03-02T08:00:00.000Z', 'sync_01JD0000000000000000000002');
    expect([a, b, c].map((d) => d.transitions.map((t) => t.bootstrap))).toEqual([[true], [true], [false]]);
  });

  it('clears on dismissDateTime and does not reopen from a late record older than the clear', () => {
    const state = empty();
    state.watch.set('explicit', '2026-03-01T00:00:00.000Z');
    const d = deriveFromRecords(state, [rec('k', '2026-03-03T07:00:00.000Z', '2026-03-03T09:00:00.000Z'), rec('k', '2026-03-03T08:00:00.000Z')], '2026-03-03T10:00:00.000Z');
    expect(summary(d)).toEqual(['opened:k@07:00', 'cleared:k@09:00']);
  });

  it('clears after the inactivity timeout, at last record + timeout', () => {
    const state = empty();
    const first = deriveFromRecords(state, [rec('k', '2026-03-01T07:00:00.000Z')], '2026-03-01T08:00:00.000Z');
    expect(first.transitions).toHaveLength(1);
    const later = new Date(Date.parse('2026-03-01T07:00:00.000Z') + INACTIVITY_TIMEOUT_MS + 1).toISOString();
    const d = deriveFromRecords(state, [], later);
    expect(d.transitions.map((t) => [t.kind, t.clearedBy, t.observedAt])).toEqual([['cleared', 'inactivity_timeout', '2026-03-08T07:00:00.000Z']]);
  });
});
