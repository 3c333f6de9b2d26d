/**
 * GET /v1/connections/{id}/faults and …/fault-events over HTTP against a real gateway, directory
 * and fault-feed (PostgreSQL + NATS JetStream), every response validated against the committed
 * OpenAPI document. Fault data enters through fault-feed's ingest consumer (the collectors' path);
 * vehicle visibility through the directory's `events.vehicle.visibility` event, projected by
 * fault-feed. The transitions published on `fleet.faults.<connectionId>.<kind>` are the same,
 * in the same order, as the HTTP feed serves.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { vehicleId } from '@switchyard/domain';
import type { FaultSnapshotV1 } from '@switchyard/messaging';
import { pollUntil } from '@switchyard/testing';
import { drainFeed, faultConnection, faultSql, ingestFaults as ingestBatch, recordSubjects } from './faults-fixture.js';
import { configureReads, ingest, readKey, vehicleRecord } from './reads-fixture.js';
import { expectError, startTestGateway, type TestGateway } from './support.js';

type Fault = { id: string; vehicle_id: string; fault_key: string; code: string; opened_at: string; bootstrap: boolean; description?: string | null };
type FaultsPage = { faults: Fault[]; nextCursor: string | null };

const at = (minute: number) => new Date(Date.UTC(2026, 10, 20, 8, minute)).toISOString();
const snapshot = (vehicle: string, minute: number, keys: string[]): FaultSnapshotV1 => ({
  model: 'complete_snapshot',
  provider: 'samsara',
  vehicleSourceId: vehicle,
  observedAt: at(minute),
  active: keys.map((key) => ({ faultKey: `j1939:0:spn${key}:fmi1`, code: `SPN ${key} FMI 1`, description: null })),
  fetchedAt: at(minute),
});

describe('fault reads over HTTP', () => {
  let gw: TestGateway;
  let subjects: Awaited<ReturnType<typeof recordSubjects>>;
  beforeAll(async () => {
    gw = await startTestGateway({ directory: true, faultFeed: true });
    subjects = await recordSubjects(gw, 'test-fault-subjects');
  }, 60_000);
  afterAll(async () => {
    await subjects?.sub.drain();
    await gw?.close();
  });

  const connection = () => faultConnection(gw);
  const ingestFaults = (connectionId: string, records: FaultSnapshotV1[]) => ingestBatch(gw, connectionId, 'samsara', records);
  const get = (path: string, headers: Record<string, string>) => gw.call('GET', path, { headers });
  const drain = (connectionId: string, headers: Record<string, string>, cursor?: string, limit = 2) => drainFeed(gw, connectionId, headers, cursor, limit);

  it('keeps the J1939 occurrence count of the latest observation in the stored occurrence and the subject payload', async () => {
    const { connectionId } = await connection();
    const counted = (minute: number, count: number | undefined): FaultSnapshotV1 => ({
      ...snapshot('v1', minute, []),
      active: [{ faultKey: 'j1939:0:spn100:fmi1', code: 'SPN 100 FMI 1', description: null, ...(count === undefined ? {} : { occurrenceCount: count }) }],
    });
    await ingestFaults(connectionId, [counted(0, 1)]);
    await ingestFaults(connectionId, [counted(1, 4)]);
    await ingestFaults(connectionId, [counted(2, undefined)]); // a snapshot without a count keeps the last one
    const [open] = await faultSql<{ id: string; structured: unknown }>(gw, `select id::text as id, structured from $faults.fault_occurrence where connection_id = ?::uuid`, [connectionId]);
    expect(open!.structured).toEqual({ standard: 'j1939', spn: 100, fmi: 1, sourceAddress: 0, occurrenceCount: 4 });
    await ingestFaults(connectionId, [snapshot('v1', 3, [])]);
    const [opened, cleared] = await subjects.of(connectionId, 2);
    expect([opened!.kind, opened!.structured]).toEqual(['opened', { standard: 'j1939', spn: 100, fmi: 1, sourceAddress: 0, occurrenceCount: 1 }]);
    expect([cleared!.kind, cleared!.structured]).toEqual(['cleared', { standard: 'j1939', spn: 100, fmi: 1, sourceAddress: 0, occurrenceCount: 4 }]);
  });

  it('lists the open faults, paged in the order they opened', async () => {
    const { connectionId, key } = await connection();
    const empty = await get(`/v1/connections/${connectionId}/faults`, key.headers);
    expect(empty).toMatchObject({ status: 200, body: { faults: [], nextCursor: null } });

    await ingestFaults(connectionId, [snapshot('v1', 0, ['100', '110']), snapshot('v2', 0, ['190'])]);
    await ingestFaults(connectionId, [snapshot('v1', 5, ['110', '111'])]);
    const first = await get(`/v1/connections/${connectionId}/faults?limit=2`, key.headers);
    expect(first.status).toBe(200);
    const page1 = first.body as FaultsPage;
    expect(page1.faults).toEqual([
      { id: expect.any(String), vehicle_id: vehicleId({ connectionId, provider: 'samsara', sourceId: 'v1' }), fault_key: 'j1939:0:spn110:fmi1', code: 'SPN 110 FMI 1', opened_at: at(0), bootstrap: true, description: null },
      expect.objectContaining({ fault_key: 'j1939:0:spn190:fmi1', bootstrap: true }),
    ]);
    expect(page1.nextCursor).toEqual(expect.any(String));
    const second = await get(`/v1/connections/${connectionId}/faults?limit=2&cursor=${page1.nextCursor}`, key.headers);
    expect(second.body).toEqual({ faults: [expect.objectContaining({ fault_key: 'j1939:0:spn111:fmi1', opened_at: at(5), bootstrap: false })], nextCursor: null });

    expectError(await get(`/v1/connections/${connectionId}/faults?limit=0`, key.headers), 400, 'invalid_query');
    expectError(await get(`/v1/connections/${connectionId}/faults?cursor=nope`, key.headers), 400, 'invalid_cursor');
    expectError(await get(`/v1/connections/${connectionId}/faults?since=1`, key.headers), 400, 'invalid_query');
    const stranger = await readKey(gw, []);
    expectError(await get(`/v1/connections/${connectionId}/faults`, stranger.headers), 404, 'not_found');
  });

  it('serves every transition once, in sequence order, from a stored durable cursor — the same ones the subjects carry', async () => {
    const { connectionId, key } = await connection();
    await ingestFaults(connectionId, [snapshot('v1', 0, ['100']), snapshot('v2', 0, ['200'])]);
    await ingestFaults(connectionId, [snapshot('v1', 1, []), snapshot('v2', 1, ['200', '201'])]);
    const { events, cursor } = await drain(connectionId, key.headers);
    expect(events.map((e) => [e.sequence, e.kind, e.vehicle_id.length > 0, e.bootstrap])).toEqual([
      [1, 'opened', true, true],
      [2, 'opened', true, true],
      [3, 'cleared', true, false],
      [4, 'opened', true, false],
    ]);
    expect(events[2]).toEqual({ id: expect.any(String), sequence: 3, connection_id: connectionId, occurrence_id: events[0]!.occurrence_id, vehicle_id: events[0]!.vehicle_id, kind: 'cleared', observed_at: at(1), bootstrap: false });

    // Nothing new: the stored cursor answers an empty page and a cursor to keep.
    const idle = await get(`/v1/connections/${connectionId}/fault-events?cursor=${cursor}`, key.headers);
    expect(idle).toMatchObject({ status: 200, body: { events: [], hasMore: false, nextCursor: expect.any(String) } });

    // Later (another key of the same connection resumes the stored cursor): exactly the new ones.
    await ingestFaults(connectionId, [snapshot('v2', 2, ['201'])]);
    const other = await readKey(gw, [connectionId]);
    const resumed = await drain(connectionId, other.headers, cursor);
    expect(resumed.events.map((e) => [e.sequence, e.kind])).toEqual([[5, 'cleared']]);

    // The subjects carried the same transitions, in the same order (ids equal: ce-id = event id).
    const mine = await subjects.of(connectionId, 5);
    expect(mine.map((p) => [p.transitionId, p.sequence, p.kind, p.occurrenceId])).toEqual([...events, ...resumed.events].map((e) => [e.id, e.sequence, e.kind, e.occurrence_id]));
    // The code's structure, in the stored occurrence and the subject payload.
    expect(mine[0]!.structured).toEqual({ standard: 'j1939', spn: 100, fmi: 1, sourceAddress: 0 });
    const [stored] = await faultSql<{ structured: unknown }>(gw, `select structured from $faults.fault_occurrence where id = ?::uuid`, [events[0]!.occurrence_id]);
    expect(stored!.structured).toEqual({ standard: 'j1939', spn: 100, fmi: 1, sourceAddress: 0 });
    // CloudEvents 1.0 binary mode: the attributes are NATS headers.
    expect(subjects.headersOf.get(events[2]!.id)).toMatchObject({
      'ce-specversion': '1.0',
      'ce-id': events[2]!.id,
      'ce-source': `/switchyard/fault-feed/connections/${connectionId}`,
      'ce-type': 'com.switchyard.fleet.fault.cleared.v1',
      'ce-time': at(1),
      'ce-subject': events[2]!.vehicle_id,
      'content-type': 'application/json',
    });

    // Bad cursors: malformed, tampered, another connection's.
    expectError(await get(`/v1/connections/${connectionId}/fault-events?cursor=abc`, key.headers), 400, 'invalid_cursor');
    const tampered = `${cursor.slice(0, -2)}${cursor.endsWith('AA') ? 'BB' : 'AA'}`;
    expectError(await get(`/v1/connections/${connectionId}/fault-events?cursor=${tampered}`, key.headers), 400, 'invalid_cursor');
    const foreign = await connection();
    expectError(await get(`/v1/connections/${foreign.connectionId}/fault-events?cursor=${cursor}`, foreign.key.headers), 400, 'invalid_cursor');
    expectError(await get(`/v1/connections/${connectionId}/fault-events?limit=1001`, key.headers), 400, 'invalid_query');
  });

  it('leaves hidden vehicles out of both reads (the directory\'s visibility event, projected by fault-feed)', async () => {
    const { connectionId, key } = await connection();
    const now = new Date().toISOString();
    await ingest(gw, connectionId, 'vehicles', [vehicleRecord('v1', now), vehicleRecord('v2', now)]);
    await ingestFaults(connectionId, [snapshot('v1', 0, ['100']), snapshot('v2', 0, ['200'])]);
    await configureReads(gw, connectionId, { excludeVehicleIds: ['v2'] });
    const v1 = vehicleId({ connectionId, provider: 'samsara', sourceId: 'v1' });
    await pollUntil(
      async () => {
        const res = await get(`/v1/connections/${connectionId}/faults`, key.headers);
        return (res.body as FaultsPage).faults.length === 1;
      },
      { timeoutMs: 15_000, description: 'v2 hidden in fault-feed' },
    );
    expect(((await get(`/v1/connections/${connectionId}/faults`, key.headers)).body as FaultsPage).faults.map((f) => f.vehicle_id)).toEqual([v1]);
    const { events } = await drain(connectionId, key.headers, undefined, 1);
    expect(events.map((e) => [e.sequence, e.vehicle_id])).toEqual([[1, v1]]);
  });

  it('answers cursor_beyond_retention for a stored cursor older than the retained feed', async () => {
    const { connectionId, key } = await connection();
    await ingestFaults(connectionId, [snapshot('v1', 0, ['100'])]);
    const before = (await drain(connectionId, key.headers)).cursor; // after sequence 1
    await ingestFaults(connectionId, [snapshot('v1', 1, [])]);
    await ingestFaults(connectionId, [snapshot('v1', 2, ['100'])]);
    // Sequences 1-2 left the retention window and were pruned (what the hourly pass writes; its SQL is tested in fault-feed's fault-reads spec).
    await faultSql(gw, `insert into $faults.fault_retention (connection_id, pruned_through, pruned_at) values (?::uuid, 2, now())`, [connectionId]);
    await faultSql(gw, `delete from $faults.fault_transition where connection_id = ?::uuid and sequence <= 2`, [connectionId]);
    expectError(await get(`/v1/connections/${connectionId}/fault-events?cursor=${before}`, key.headers), 400, 'cursor_beyond_retention');
    const fresh = await drain(connectionId, key.headers);
    expect(fresh.events.map((e) => [e.sequence, e.kind])).toEqual([[3, 'opened']]);
  });
});
