/**
 * The in-transaction recheck of spec 5 rule 2 for the Connection-Token (services/grant-recheck.ts)
 * and the projection ordering behind it, on the real PostgreSQL and NATS. The `sync.*` RPCs are
 * called directly with the caller the gateway sends after accepting a token, so a token revoked
 * between the gateway's authentication and the orchestrator's transaction is simulated exactly:
 * the gateway let the call through, the projection already holds the revocation.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { RPCS, type SyncCallerV1 } from '@switchyard/messaging';
import { inTransaction } from '@switchyard/persistence';
import { rpcErrorCode, startServiceForTest, type ServiceUnderTest } from '@switchyard/testing';
import { startSyncOrchestrator, syncOrchestratorService } from '../src/index.js';
import { ApplicationCredentialRepository } from '../src/db/repositories/application-credential.repository.js';
import { callerFor, collectingConfig, projectionFeed, type GrantSnapshot, type ProjectionFeed } from './projection-feed.js';

let h: ServiceUnderTest;
let feed: ProjectionFeed;
const connectionId = randomUUID();
const otherConnectionId = randomUUID();

/** An application granted every sync operation on both connections, at the given versions, with these active tokens. */
function snapshot(applicationId: string, credentialVersion: number, tokenVersion: number | undefined, tokens?: { id: string; connectionId: string }[]): GrantSnapshot {
  const operations = ['sync.create' as const, 'sync.read' as const, 'sync.retry' as const, 'sync.cancel' as const];
  return {
    applicationId,
    environment: 'sandbox',
    revoked: false,
    credentialVersion,
    grants: [connectionId, otherConnectionId].map((id) => ({ connectionId: id, operations, history: true })),
    ...(tokenVersion === undefined ? {} : { tokenVersion }),
    ...(tokens === undefined ? {} : { connectionTokens: tokens }),
  };
}

const timeout = { timeoutMs: 5_000 };

const listed = async (caller: SyncCallerV1) => (await h.client.request(RPCS.sync.list, { caller, limit: 10 }, timeout)).syncs.map((s) => s.id);

beforeAll(async () => {
  h = await startServiceForTest(syncOrchestratorService, { start: startSyncOrchestrator });
  feed = projectionFeed(h);
  await feed.publishConfig(collectingConfig(connectionId, 1));
  await feed.publishConfig(collectingConfig(otherConnectionId, 1));
});

afterAll(async () => {
  await h?.close();
});

describe('Connection-Token recheck (spec 5 rule 2)', () => {
  it('refuses with 401 on every sync RPC a token revoked after the gateway accepted it; a new token works', async () => {
    const applicationId = randomUUID();
    const [first, second] = [randomUUID(), randomUUID()];
    const issued = snapshot(applicationId, 2, 1, [{ id: first, connectionId }]);
    await feed.publishGrant(issued);
    const accepted = callerFor(issued, connectionId, first);
    const syncId = (await h.client.request(RPCS.sync.create, { caller: accepted }, timeout)).sync.id;
    expect(await listed(accepted)).toEqual([syncId]);

    // Revoked: the projection moves to token version 2 without it; the gateway had accepted it at version 1.
    await feed.publishGrant(snapshot(applicationId, 2, 2, []));
    expect(await rpcErrorCode(h.client.request(RPCS.sync.create, { caller: accepted }, timeout))).toBe('unauthorized');
    expect(await rpcErrorCode(h.client.request(RPCS.sync.list, { caller: accepted, limit: 10 }, timeout))).toBe('unauthorized');
    for (const rpc of [RPCS.sync.get, RPCS.sync.retry, RPCS.sync.cancel]) {
      expect(await rpcErrorCode(h.client.request(rpc, { caller: accepted, syncId }, timeout))).toBe('unauthorized');
    }
    // The revoked token's call changed nothing: the sync is still requested.
    const fresh = snapshot(applicationId, 2, 3, [{ id: second, connectionId }]);
    await feed.publishGrant(fresh);
    const renewed = callerFor(fresh, connectionId, second);
    expect((await h.client.request(RPCS.sync.get, { caller: renewed, syncId }, timeout)).sync).toMatchObject({ id: syncId, status: 'requested' });
    expect(await rpcErrorCode(h.client.request(RPCS.sync.get, { caller: accepted, syncId }, timeout))).toBe('unauthorized');
  });

  it('answers 503 for a token newer than the projection (the gateway is ahead), and accepts it once the snapshot arrives', async () => {
    const applicationId = randomUUID();
    const [old, issued] = [randomUUID(), randomUUID()];
    await feed.publishGrant(snapshot(applicationId, 2, 1, [{ id: old, connectionId }]));
    const ahead = snapshot(applicationId, 2, 2, [
      { id: old, connectionId },
      { id: issued, connectionId },
    ]);
    const caller = callerFor(ahead, connectionId, issued);
    expect(await rpcErrorCode(h.client.request(RPCS.sync.list, { caller, limit: 10 }, timeout))).toBe('service_unavailable');
    await feed.publishGrant(ahead);
    expect(await listed(caller)).toEqual([]);
  });

  it('refuses with 401 a token the application holds for another connection, and another application’s token', async () => {
    const [applicationId, otherApplicationId] = [randomUUID(), randomUUID()];
    const [own, elsewhere, foreign] = [randomUUID(), randomUUID(), randomUUID()];
    const current = snapshot(applicationId, 2, 2, [
      { id: own, connectionId },
      { id: elsewhere, connectionId: otherConnectionId },
    ]);
    await feed.publishGrant(current);
    await feed.publishGrant(snapshot(otherApplicationId, 2, 1, [{ id: foreign, connectionId }]));
    expect(await listed(callerFor(current, connectionId, own))).toEqual([]);
    expect(await rpcErrorCode(h.client.request(RPCS.sync.list, { caller: callerFor(current, connectionId, elsewhere), limit: 10 }, timeout))).toBe('unauthorized');
    expect(await rpcErrorCode(h.client.request(RPCS.sync.list, { caller: callerFor(current, connectionId, foreign), limit: 10 }, timeout))).toBe('unauthorized');
  });

  it('answers 503 while the tokens cannot be rechecked: a caller without its token, or a snapshot of a gateway before the token recheck', async () => {
    const applicationId = randomUUID();
    const token = randomUUID();
    const legacy = snapshot(applicationId, 2, undefined);
    await feed.publishGrant(legacy);
    const caller = callerFor(legacy, connectionId, token);
    expect(await rpcErrorCode(h.client.request(RPCS.sync.list, { caller, limit: 10 }, timeout))).toBe('service_unavailable');
    // `grants:republish` re-announces the same versions with the tokens: the row is completed.
    await feed.publishGrant(snapshot(applicationId, 2, 0, [{ id: token, connectionId }]));
    expect(await listed(caller)).toEqual([]);
    const { connectionToken: _sent, ...withoutToken } = caller;
    expect(await rpcErrorCode(h.client.request(RPCS.sync.list, { caller: withoutToken, limit: 10 }, timeout))).toBe('service_unavailable');
  });
});

describe('application grant projection', () => {
  const repository = new ApplicationCredentialRepository();
  const apply = (s: GrantSnapshot) => inTransaction(h.service.runtime.orm, (em) => repository.apply(em, { ...s, updatedAt: new Date().toISOString() }));
  const stored = async (applicationId: string) => {
    const row = await inTransaction(h.service.runtime.orm, (em) => repository.lockForRecheck(em, applicationId));
    return row && { credentialVersion: row.credentialVersion, tokenVersion: row.tokenVersion, connectionTokens: row.connectionTokens };
  };

  it('ignores a snapshot older than the one it holds (over the bus)', async () => {
    const other = randomUUID();
    await feed.publishGrant({ applicationId: other, environment: 'sandbox', revoked: false, credentialVersion: 3, grants: [] });
    await feed.publishGrant({ applicationId: other, environment: 'sandbox', revoked: true, credentialVersion: 2, grants: [] }, false);
    await feed.publishGrant({ applicationId: other, environment: 'sandbox', revoked: false, credentialVersion: 4, grants: [] });
    const rows = await feed.sql<{ credential_version: number; revoked: boolean }>('select credential_version, revoked from $s.application_credential where application_id = ?::uuid', [other]);
    expect(rows).toEqual([{ credential_version: 4, revoked: false }]);
  });

  it('orders snapshots by credentialVersion, then tokenVersion', async () => {
    const applicationId = randomUUID();
    const [a, b] = [{ id: randomUUID(), connectionId }, { id: randomUUID(), connectionId }];
    expect(await apply(snapshot(applicationId, 2, 1, [a]))).toBe(true);
    expect(await apply(snapshot(applicationId, 2, 0, []))).toBe(false);
    expect(await apply(snapshot(applicationId, 1, 5, []))).toBe(false);
    expect(await apply(snapshot(applicationId, 2, 1, [a, b]))).toBe(false);
    expect(await stored(applicationId)).toEqual({ credentialVersion: 2, tokenVersion: 1, connectionTokens: [a] });
    expect(await apply(snapshot(applicationId, 2, 2, [a, b]))).toBe(true);
    expect(await apply(snapshot(applicationId, 3, 2, [b]))).toBe(true);
    expect(await stored(applicationId)).toEqual({ credentialVersion: 3, tokenVersion: 2, connectionTokens: [b] });
  });

  it('completes unknown tokens from a snapshot at the same versions, and never forgets known ones', async () => {
    const applicationId = randomUUID();
    const token = { id: randomUUID(), connectionId };
    expect(await apply(snapshot(applicationId, 2, undefined))).toBe(true);
    expect(await stored(applicationId)).toEqual({ credentialVersion: 2, tokenVersion: 0, connectionTokens: null });
    expect(await apply(snapshot(applicationId, 2, 0, [token]))).toBe(true);
    expect(await apply(snapshot(applicationId, 2, undefined))).toBe(false);
    expect(await apply(snapshot(applicationId, 2, 0, []))).toBe(false);
    expect(await stored(applicationId)).toEqual({ credentialVersion: 2, tokenVersion: 0, connectionTokens: [token] });
  });
});
