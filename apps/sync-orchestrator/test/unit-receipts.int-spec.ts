/**
 * The collector-facing API of the orchestrator on the real PostgreSQL and NATS: leases with
 * `FOR UPDATE SKIP LOCKED`, heartbeats, fencing tokens, `markUnitReceipted` and completion, and the
 * cancel/retry rules for in-flight leases (spec 3 rules 2-3). Projections are fed over the bus
 * exactly as the gateway feeds them, and syncs are created through the `sync.*` RPCs.
 *
 * Refused writes say why (issue 25): a unit receipted before its holder's last cursor save or
 * heartbeat is `receipted` — no lease lost, nothing counted — while a write under a superseded token
 * is `superseded` and counted in `fenced_writes` only when the token alone refused it.
 * Mutations tried: the token condition removed from saveProviderCursor and heartbeat
 * (`(fencing_token = ?::bigint or true)`) → "re-leases a unit only after …" fails (the stalled
 * collector's cursor lands, nothing is counted); `refusal` answering `superseded` for every refusal
 * (the old boolean: any refusal a lost lease) → "a unit receipted before …" fails, and every count.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { RPCS, type ApplicationGrantV1, type ConnectionConfigV1, type SyncCallerV1 } from '@switchyard/messaging';
import { startServiceForTest, type ServiceUnderTest } from '@switchyard/testing';
import { startSyncOrchestrator, syncOrchestratorService, UnitReceiptService } from '../src/index.js';
import { callerFor, collectingConfig, projectionFeed, type ProjectionFeed } from './projection-feed.js';

let h: ServiceUnderTest;
let feed: ProjectionFeed;
let units: UnitReceiptService;
const applicationId = randomUUID();
let grantVersion = 0;

const evidence = (key: string) => ({ context: 'directory', receiptKey: key, committedAt: new Date().toISOString() });

const sql = <T>(text: string, params: unknown[] = []): Promise<T[]> => feed.sql<T>(text, params);

/** A collecting connection with `vehicles` approved vehicles (vehicles purpose only: one unit each), granted to the test application with a Connection-Token of its own. */
async function connection(vehicles: number, patch: Partial<ConnectionConfigV1> = {}): Promise<{ caller: SyncCallerV1; config: ConnectionConfigV1 }> {
  const id = randomUUID();
  const config = collectingConfig(id, vehicles, patch);
  await feed.publishConfig(config);
  grantVersion += 1;
  const existing = await sql<Pick<ApplicationGrantV1, 'grants' | 'connectionTokens'>>(
    'select grants, connection_tokens as "connectionTokens" from $s.application_credential where application_id = ?::uuid',
    [applicationId],
  );
  const grants = [...(existing[0]?.grants ?? []), { connectionId: id, operations: ['sync.create', 'sync.read', 'sync.retry', 'sync.cancel'] as const, history: true }];
  const tokenId = randomUUID();
  const snapshot = {
    applicationId,
    environment: 'sandbox' as const,
    revoked: false,
    credentialVersion: grantVersion,
    grants: grants.map((g) => ({ ...g, operations: [...g.operations] })),
    tokenVersion: 0,
    connectionTokens: [...(existing[0]?.connectionTokens ?? []), { id: tokenId, connectionId: id }],
  };
  await feed.publishGrant(snapshot);
  return { caller: callerFor(snapshot, id, tokenId), config };
}

async function createSync(caller: SyncCallerV1): Promise<string> {
  return (await h.client.request(RPCS.sync.create, { caller }, { timeoutMs: 5_000 })).sync.id;
}

async function getSync(caller: SyncCallerV1, syncId: string) {
  return (await h.client.request(RPCS.sync.get, { caller, syncId }, { timeoutMs: 5_000 })).sync;
}

/** The unit's resume point and its count of writes fencing refused. */
async function fencing(unitId: string) {
  const [row] = await sql<{ provider_cursor: string | null; fenced_writes: number }>('select provider_cursor, fenced_writes from $s.sync_unit where id = ?::bigint', [unitId]);
  return row;
}

async function leaseColumns(syncId: string) {
  return sql<{ id: string; fencing_token: string; lease_owner: string | null; lease_expires_at: string | null }>(
    `select id::text as id, fencing_token::text as fencing_token, lease_owner, lease_expires_at::text as lease_expires_at from $s.sync_unit where sync_id = ? order by seq`,
    [syncId],
  );
}

beforeAll(async () => {
  h = await startServiceForTest(syncOrchestratorService, { start: startSyncOrchestrator });
  feed = projectionFeed(h);
  units = h.service.app.get(UnitReceiptService);
});

afterAll(async () => {
  await h?.close();
});

describe('leases', () => {
  it('hands disjoint units to concurrent collectors (SKIP LOCKED) and moves the sync to in_progress', async () => {
    const { caller } = await connection(40);
    const syncId = await createSync(caller);
    const batches = await Promise.all(['a', 'b', 'c', 'd'].map((owner) => units.leaseUnits(owner, 15, { connectionId: caller.connectionId })));
    const ids = batches.flat().map((u) => u.unitId);
    expect(ids).toHaveLength(40);
    expect(new Set(ids).size).toBe(40);
    expect(batches.flat().every((u) => u.fencingToken === '1' && u.syncId === syncId && u.attempt === 1)).toBe(true);
    expect(await units.leaseUnits('e', 10, { connectionId: caller.connectionId })).toEqual([]);
    expect(await getSync(caller, syncId)).toMatchObject({ status: 'in_progress', progress: 0 });
  });

  it('re-leases a unit only after its lease expired, under a new token that fences the old holder off', async () => {
    const { caller } = await connection(1);
    const syncId = await createSync(caller);
    const [first] = await units.leaseUnits('slow', 1, { connectionId: caller.connectionId, leaseMs: 300 });
    expect(await units.heartbeat(first!.unitId, first!.fencingToken, 300)).toBe('written');
    expect(await units.leaseUnits('fast', 1, { connectionId: caller.connectionId })).toEqual([]);
    await new Promise((resolve) => setTimeout(resolve, 400));
    const [second] = await units.leaseUnits('fast', 1, { connectionId: caller.connectionId });
    expect(second).toMatchObject({ unitId: first!.unitId, fencingToken: '2' });
    expect(await units.saveProviderCursor(second!.unitId, second!.fencingToken, 'page-1')).toBe('written');
    // The stalled collector comes back: nothing it does counts, and each refusal is counted.
    expect(await units.heartbeat(first!.unitId, first!.fencingToken)).toBe('superseded');
    expect(await units.saveProviderCursor(first!.unitId, first!.fencingToken, 'page-9')).toBe('superseded');
    expect(await fencing(first!.unitId)).toEqual({ provider_cursor: 'page-1', fenced_writes: 2 });
    expect(await units.markUnitReceipted(first!.unitId, first!.fencingToken, evidence('old'))).toMatchObject({ outcome: 'stale_fencing_token', status: 'in_progress', progress: 0 });
    expect(await units.saveProviderCursor(second!.unitId, second!.fencingToken, 'page-2')).toBe('written');
    expect(await units.markUnitReceipted(second!.unitId, second!.fencingToken, evidence('new'))).toMatchObject({ outcome: 'receipted', status: 'completed', progress: 100 });
    expect(await getSync(caller, syncId)).toMatchObject({ status: 'completed', progress: 100, completedAt: expect.any(String) });
    // Completed units and syncs never move backwards.
    expect(await units.markUnitReceipted(second!.unitId, second!.fencingToken, evidence('again'))).toMatchObject({ outcome: 'already_receipted', status: 'completed' });
  });

  it('a unit receipted before its holder saves the cursor or heartbeats is `receipted`: no lease lost, nothing written, nothing counted (issue 25)', async () => {
    const { caller } = await connection(1);
    await createSync(caller);
    const [held] = await units.leaseUnits('collector', 1, { connectionId: caller.connectionId });
    expect(await units.saveProviderCursor(held!.unitId, held!.fencingToken, 'page-1')).toBe('written');
    // The final batch is published; its receipt is handled before the collector's cursor save.
    expect(await units.markUnitReceipted(held!.unitId, held!.fencingToken, evidence('final'))).toMatchObject({ outcome: 'receipted' });
    expect(await units.saveProviderCursor(held!.unitId, held!.fencingToken, null)).toBe('receipted');
    expect(await units.heartbeat(held!.unitId, held!.fencingToken)).toBe('receipted');
    expect(await fencing(held!.unitId)).toEqual({ provider_cursor: 'page-1', fenced_writes: 0 });
  });

  it('a heartbeat after the lease ran out is `expired`; a late write the unit state refuses too is `superseded` but not counted', async () => {
    const { caller } = await connection(1);
    await createSync(caller);
    const [slow] = await units.leaseUnits('slow', 1, { connectionId: caller.connectionId, leaseMs: 200 });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await units.heartbeat(slow!.unitId, slow!.fencingToken)).toBe('expired');
    const [fast] = await units.leaseUnits('fast', 1, { connectionId: caller.connectionId });
    expect(await units.markUnitReceipted(fast!.unitId, fast!.fencingToken, evidence('fast'))).toMatchObject({ outcome: 'receipted' });
    // Receipted under the newer token: the state alone refuses the old holder's write, so fencing is not what refused it.
    expect(await units.saveProviderCursor(slow!.unitId, slow!.fencingToken, 'late')).toBe('superseded');
    expect(await fencing(slow!.unitId)).toEqual({ provider_cursor: null, fenced_writes: 0 });
  });

  it('stops leasing while the connection is paused or unified collection is off', async () => {
    const { caller, config } = await connection(2);
    await createSync(caller);
    await feed.publishConfig({ ...config, status: 'paused', revision: 3 });
    expect(await units.leaseUnits('x', 10, { connectionId: caller.connectionId })).toEqual([]);
    await feed.publishConfig({ ...config, unifiedCollection: false, revision: 4 });
    expect(await units.leaseUnits('x', 10, { connectionId: caller.connectionId })).toEqual([]);
    await feed.publishConfig({ ...config, revision: 5 });
    expect(await units.leaseUnits('x', 10, { connectionId: caller.connectionId })).toHaveLength(2);
  });
});

describe('markUnitReceipted', () => {
  it('counts each unit once under concurrent duplicate receipts, and completes exactly at the last one', async () => {
    const { caller } = await connection(3);
    const syncId = await createSync(caller);
    const leased = await units.leaseUnits('c', 3, { connectionId: caller.connectionId });
    const results = await Promise.all([...leased, ...leased].map((u, i) => units.markUnitReceipted(u.unitId, u.fencingToken, evidence(`k${i % 3}`))));
    expect(results.filter((r) => r.outcome === 'receipted')).toHaveLength(3);
    expect(results.filter((r) => r.outcome === 'already_receipted')).toHaveLength(3);
    expect(results.filter((r) => r.status === 'completed')).not.toHaveLength(0);
    expect(await getSync(caller, syncId)).toMatchObject({ status: 'completed', progress: 100 });
    expect(await sql('select unit_id from $s.sync_receipt where sync_id = ?', [syncId])).toHaveLength(3);
  });

  it('answers unknown_unit for ids that name no unit', async () => {
    expect(await units.markUnitReceipted('999999999', '1', evidence('x'))).toEqual({ outcome: 'unknown_unit' });
    expect(await units.markUnitReceipted('abc', '1', evidence('x'))).toEqual({ outcome: 'unknown_unit' });
  });
});

describe('cancel and retry with units in flight (spec 3 rules 1-2)', () => {
  it('cancel keeps leases until they expire; retry fences off the previous attempt and needs fresh receipts', async () => {
    const { caller } = await connection(2);
    const syncId = await createSync(caller);
    const leased = await units.leaseUnits('holder', 1, { connectionId: caller.connectionId, leaseMs: 500 });
    await units.markUnitReceipted(leased[0]!.unitId, leased[0]!.fencingToken, evidence('before-cancel'));
    const [inFlight] = await units.leaseUnits('holder', 1, { connectionId: caller.connectionId, leaseMs: 800 });
    const before = await leaseColumns(syncId);

    await h.client.request(RPCS.sync.cancel, { caller, syncId }, { timeoutMs: 5_000 });
    expect(await getSync(caller, syncId)).toMatchObject({ status: 'failed', failureReason: 'cancelled', progress: 50 });
    expect(await leaseColumns(syncId)).toEqual(before);
    expect(await units.markUnitReceipted(inFlight!.unitId, inFlight!.fencingToken, evidence('after-cancel'))).toMatchObject({ outcome: 'sync_not_open', status: 'failed' });
    expect(await units.leaseUnits('other', 10, { connectionId: caller.connectionId })).toEqual([]);

    await h.client.request(RPCS.sync.retry, { caller, syncId }, { timeoutMs: 5_000 });
    expect(await getSync(caller, syncId)).toMatchObject({ status: 'requested', attempts: 2, progress: 0 });
    const after = await leaseColumns(syncId);
    // Tokens moved on; the in-flight lease is still held by its owner until it ends.
    expect(after.map((u) => BigInt(u.fencing_token))).toEqual(before.map((u) => BigInt(u.fencing_token) + 1n));
    expect(after.map((u) => [u.lease_owner, u.lease_expires_at])).toEqual(before.map((u) => [u.lease_owner, u.lease_expires_at]));
    expect(await units.markUnitReceipted(inFlight!.unitId, inFlight!.fencingToken, evidence('old-attempt'))).toMatchObject({ outcome: 'stale_fencing_token' });

    // The unit whose lease already ended is leasable at once; the in-flight one only after its lease.
    const now = await units.leaseUnits('next', 10, { connectionId: caller.connectionId });
    expect(now.map((u) => u.unitId)).toEqual([leased[0]!.unitId]);
    await new Promise((resolve) => setTimeout(resolve, 900));
    const later = await units.leaseUnits('next', 10, { connectionId: caller.connectionId });
    expect(later.map((u) => u.unitId)).toEqual([inFlight!.unitId]);
    expect(BigInt(later[0]!.fencingToken)).toBeGreaterThan(BigInt(inFlight!.fencingToken));
    for (const u of [...now, ...later]) await units.markUnitReceipted(u.unitId, u.fencingToken, evidence(`attempt-2-${u.unitId}`));
    expect(await getSync(caller, syncId)).toMatchObject({ status: 'completed', attempts: 2, progress: 100 });
  });

  it('failSync fails an open sync once, and never a completed one', async () => {
    const { caller } = await connection(1);
    const syncId = await createSync(caller);
    expect(await units.failSync(syncId, 'provider_auth_required')).toBe(true);
    expect(await getSync(caller, syncId)).toMatchObject({ status: 'failed', failureReason: 'provider_auth_required' });
    expect(await units.failSync(syncId, 'again')).toBe(false);
  });
});
