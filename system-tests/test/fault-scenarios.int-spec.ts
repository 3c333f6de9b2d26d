/**
 * The fault scenarios of each provider's model end to end (gateway, directory, fault-feed on real
 * PostgreSQL and NATS), in the shapes the adapters publish (Samsara J1939 and Motive OBD-II complete
 * snapshots, Geotab FaultData records): present at first connection (bootstrap), open, clear,
 * flap, reopen (a new occurrence each time), a failed or partial collection in between (no snapshot
 * of the vehicle: nothing clears), a redelivered batch (nothing twice), and for Geotab repeat,
 * dismissal, a late record and the inactivity timeout. Each asserts the exact event sequence on
 * the HTTP feed and on the `fleet.faults` subjects (same ids, order, kinds), and the open faults
 * left at the end.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { vehicleId, type Provider } from '@switchyard/domain';
import type { FaultRecordV1, FaultSnapshotV1, FaultTransitionV1 } from '@switchyard/messaging';
import { sleep } from '@switchyard/testing';
import { drainFeed, faultConnection, faultSql, ingestFaults, recordSubjects, type FaultEvent } from './faults-fixture.js';
import { startTestGateway, type TestGateway } from './support.js';

const DAY_MS = 24 * 3600 * 1000;
const t = (minute: number) => new Date(Date.UTC(2026, 10, 22, 6, minute)).toISOString();

describe('fault scenarios per provider', () => {
  let gw: TestGateway;
  let subjects: Awaited<ReturnType<typeof recordSubjects>>;
  beforeAll(async () => {
    gw = await startTestGateway({ directory: true, faultFeed: true });
    subjects = await recordSubjects(gw, 'test-fault-scenarios');
  }, 60_000);
  afterAll(async () => {
    await subjects?.sub.drain();
    await gw?.close();
  });

  /** The feed as [kind, key, bootstrap, observedAt minute-of-day] rows, and the same check on the subjects. */
  const sequenceOf = async (connectionId: string, headers: Record<string, string>) => {
    const { events } = await drainFeed(gw, connectionId, headers, undefined, 3);
    const keys = new Map((await faultSql<{ id: string; fault_key: string }>(gw, `select id::text as id, fault_key from $faults.fault_occurrence where connection_id = ?::uuid`, [connectionId])).map((r) => [r.id, r.fault_key]));
    const published = await subjects.of(connectionId, events.length);
    expect(published.map((p: FaultTransitionV1) => [p.transitionId, p.sequence, p.kind, p.occurrenceId, p.bootstrap])).toEqual(events.map((e: FaultEvent) => [e.id, e.sequence, e.kind, e.occurrence_id, e.bootstrap]));
    expect(events.map((e) => e.sequence)).toEqual(events.map((_, i) => i + 1));
    return { events, rows: events.map((e) => [e.kind, keys.get(e.occurrence_id), e.bootstrap, e.observed_at]) };
  };
  const openKeys = async (connectionId: string, headers: Record<string, string>) => {
    const res = await gw.call('GET', `/v1/connections/${connectionId}/faults`, { headers });
    expect(res.status).toBe(200);
    return (res.body as { faults: { fault_key: string }[] }).faults.map((f) => f.fault_key);
  };

  const snapshotCases: { provider: Provider; a: string; b: string; code: (key: string) => string }[] = [
    { provider: 'samsara', a: 'j1939:0:spn110:fmi0', b: 'j1939:0:spn190:fmi2', code: (k) => k.replace(/^j1939:\d+:spn(\d+):fmi(\d+)$/, 'SPN $1 FMI $2') },
    { provider: 'motive', a: 'obdii:P0420', b: 'obdii:P0171', code: (k) => k.slice('obdii:'.length) },
  ];

  for (const { provider, a, b, code } of snapshotCases) {
    it(`${provider} complete snapshots: bootstrap, open, failed and partial passes, clear, reopen, flap, redelivery`, async () => {
      const { connectionId, key } = await faultConnection(gw, provider);
      const snap = (vehicle: string, minute: number, keys: string[]): FaultSnapshotV1 => ({
        model: 'complete_snapshot',
        provider,
        vehicleSourceId: vehicle,
        observedAt: t(minute),
        active: keys.map((k) => ({ faultKey: k, code: code(k), description: null })),
        fetchedAt: t(minute),
      });
      const run = (...records: FaultSnapshotV1[]) => ingestFaults(gw, connectionId, provider, records);
      await run(snap('v1', 0, [a]), snap('v2', 0, [])); // a present at first connection
      await run(snap('v1', 5, [a, b])); // b opens
      // 10: the collection failed — no batch. 15: a partial pass whose page held only v2 (v1's codes unreadable): v1 keeps its faults.
      await run(snap('v2', 15, []));
      await run(snap('v1', 20, [b])); // a clears
      await run(snap('v1', 25, [a, b])); // a reopens: a new occurrence
      await run(snap('v1', 30, [b]), snap('v1', 35, [a, b])); // flap: clear and open again within one pass
      await run(snap('v1', 40, [a, b])); // no change
      await run(snap('v1', 35, [])); // an older snapshot arriving late changes nothing
      await run(snap('v1', 45, [])); // both clear
      await run(snap('v1', 45, [])); // the same again (a republished copy): nothing
      await sleep(300);
      const { events, rows } = await sequenceOf(connectionId, key.headers);
      expect(rows).toEqual([
        ['opened', a, true, t(0)],
        ['opened', b, false, t(5)],
        ['cleared', a, false, t(20)],
        ['opened', a, false, t(25)],
        ['cleared', a, false, t(30)],
        ['opened', a, false, t(35)],
        // One snapshot clears both: numbered in the order they opened.
        ['cleared', b, false, t(45)],
        ['cleared', a, false, t(45)],
      ]);
      expect(new Set(events.filter((e) => e.kind === 'opened').map((e) => e.occurrence_id)).size).toBe(4);
      expect(events.every((e) => e.vehicle_id === vehicleId({ connectionId, provider, sourceId: 'v1' }))).toBe(true);
      expect(await openKeys(connectionId, key.headers)).toEqual([]);
    });
  }

  it('geotab explicit records: bootstrap, repeat, dismissal, a late record, reopen, an empty pass, the inactivity timeout', async () => {
    const provider = 'geotab';
    const { connectionId, key } = await faultConnection(gw, provider);
    const A = 'b1|DiagnosticEngineCoolantTemperatureId|NoFailureModeId|ControllerNoneId';
    const B = 'b1|aLowOilPressure|aFm3|aCtl1';
    let n = 0;
    const rec = (faultKey: string, minute: number, fetchedAt: string, dismissedMinute: number | null = null): FaultRecordV1 => ({
      model: 'explicit_records',
      provider,
      sourceId: `fd${++n}`,
      vehicleSourceId: 'b1',
      faultKey,
      code: faultKey === A ? '110' : '100-FMI3',
      description: null,
      observedAt: t(minute),
      providerState: 'Active',
      dismissedAt: dismissedMinute === null ? null : t(dismissedMinute),
      fetchedAt,
    });
    const run = (fetchedAt: string, ...records: FaultRecordV1[]) => ingestFaults(gw, connectionId, provider, records, fetchedAt);
    await run(t(1), rec(A, 0, t(1))); // present at first connection
    await run(t(11), rec(A, 10, t(11)), rec(B, 10, t(11))); // a repeat of A, B opens
    await run(t(21), rec(A, 20, t(21), 25)); // A dismissed at :25
    await run(t(26), rec(A, 15, t(26))); // a late record from before the dismissal: nothing
    await run(t(31), rec(A, 30, t(31))); // A again: a new occurrence
    await run(t(41)); // a pass with no records: nothing
    const later = new Date(Date.parse(t(31)) + 8 * DAY_MS).toISOString();
    await run(later); // 8 days without a repeat: both clear by inactivity
    const { rows } = await sequenceOf(connectionId, key.headers);
    const timeout = (minute: number) => new Date(Date.parse(t(minute)) + 7 * DAY_MS).toISOString();
    expect(rows).toEqual([
      ['opened', A, true, t(1)], // bootstrap: when we first watched (the first pass's fetch time: these batches carry no `read`), not its record's :00
      ['opened', B, false, t(10)],
      ['cleared', A, false, t(25)],
      ['opened', A, false, t(30)],
      ['cleared', B, false, timeout(10)],
      ['cleared', A, false, timeout(30)],
    ]);
    const clearedBy = await faultSql<{ fault_key: string; cleared_by: string }>(gw, `select fault_key, cleared_by from $faults.fault_occurrence where connection_id = ?::uuid order by opened_at, fault_key`, [connectionId]);
    expect(clearedBy.map((r) => r.cleared_by)).toEqual(['dismissed', 'inactivity_timeout', 'inactivity_timeout']);
    expect(await openKeys(connectionId, key.headers)).toEqual([]);
  });
});
