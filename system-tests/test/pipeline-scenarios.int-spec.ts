/**
 * Provider scenarios THROUGH the pipeline (public sync → collectors → JetStream → directory commit
 * → receipts), against the Samsara simulator as its own process with a fixed clock (SIM_START,
 * factor 0) and syncs with one fixed `startFrom`, so every run asks for — and is served — the same
 * provider data. A clean run gives the reference canonical dump of the directory; before every
 * later run the connection's directory rows are emptied, so each dump holds only what that run
 * wrote, and must equal the reference byte for byte:
 * - 429 storms, 5xx bursts, duplicated and reordered pages: every sync `completed`; a throttled
 *   unit is re-queued at Retry-After, never counted as an error attempt;
 * - 401 mid-sync (credential revoked after a few requests): the sync fails with
 *   `provider_auth_required`, the connection shows it as `last_error_code` over HTTP; with the
 *   credential restored, `POST /v1/syncs/{id}/retry` completes it with the same dump;
 * - the simulator enforces Samsara's 5 req/s trips tier; 12 concurrent collector jobs get through
 *   it without a throttled or failed unit and without one 429 (the tier budget paces them; the
 *   simulator's control API counts its rate-limit refusals);
 * - a directory slower than the lease (stopped until after several leases ran out): units whose
 *   final batch is published wait for their receipts instead of being leased and collected again;
 * - cancellation mid-collection: no unit leased after the cancel, at most the pages in flight
 *   finish, the in-flight leases are not released early, the sync stays cancelled (`failed` with
 *   failureReason `cancelled`) and is never counted as completed;
 * - a rejected receipt (directory refuses a batch of an unknown connection): the unit records
 *   the reason and the sync fails with it.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomBytes, randomUUID } from 'node:crypto';
import { type DirectoryBatchV1, EVENTS, subjectFor } from '@switchyard/messaging';
import { collectPages, createSamsaraAdapter } from '@switchyard/providers';
import { dumpDifference, pollUntil, sleep, spawnSimulator, type NodeProcess } from '@switchyard/testing';
import { PipelineStack, type PipelineConnection, type PublicSync } from './pipeline-stack.js';

const apiToken = `samsara_api_${randomBytes(20).toString('hex')}`;
const LEASE_MS = 4_000;
/** The simulated clock stands still one day ago (on the hour); syncs start two days before it. */
const SIM_START = new Date(Math.floor((Date.now() - 86_400_000) / 3_600_000) * 3_600_000);
const START_FROM = new Date(SIM_START.getTime() - 2 * 86_400_000).toISOString();

let simulator: NodeProcess | undefined;
let simulatorUrl: string;
let stack: PipelineStack;
let connection: PipelineConnection;
let reference: string;

type Scenario = Record<string, unknown> & { kind: string };

async function scenarios(list: Scenario[] | null): Promise<void> {
  const res = await fetch(`${simulatorUrl}/_sim/accounts/${apiToken}/scenarios`, {
    method: list ? 'PUT' : 'DELETE',
    headers: { 'content-type': 'application/json' },
    body: list ? JSON.stringify(list) : undefined,
  });
  expect(res.status).toBe(list ? 200 : 204);
}

/** The simulator's counters of the account: requests received, and those its rate limits refused. */
async function providerCounters(): Promise<{ requests: number; rateLimited: number }> {
  const res = await fetch(`${simulatorUrl}/_sim/accounts/${apiToken}/scenarios`);
  return (await res.json()) as { requests: number; rateLimited: number };
}

async function providerRequests(): Promise<number> {
  return (await providerCounters()).requests;
}

/** Empties the connection's directory rows, runs one sync to its end. */
async function freshRun(): Promise<PublicSync> {
  await stack.wipeDirectory(connection.connectionId);
  const sync = await connection.createSync({ startFrom: START_FROM });
  return connection.settled(sync.id);
}

async function expectReferenceDump(): Promise<void> {
  const dump = await connection.dump();
  expect(dumpDifference(reference, dump)).toBe('');
}

beforeAll(async () => {
  ({ process: simulator, url: simulatorUrl } = await spawnSimulator('samsara', {
    SAMSARA_API_TOKENS: apiToken,
    SIM_VEHICLES: '4',
    SIM_SEED: 'pipeline-scenarios',
    SIM_CLOCK_FACTOR: '0',
    SIM_START: SIM_START.toISOString(),
  }));
  stack = await PipelineStack.start({
    providerBaseUrls: { samsara: simulatorUrl },
    orchestratorEnv: { LEASE_MS: String(LEASE_MS), COLLECTOR_CONCURRENCY: '12' },
  });
  const direct = createSamsaraAdapter({ provider: 'samsara', baseUrl: simulatorUrl, credentials: { apiToken } });
  const roster = (await collectPages((c) => direct.vehicles(c), 100)).items.map((v) => v.sourceId);
  expect(roster).toHaveLength(4);
  connection = await stack.connect({ provider: 'samsara', credentials: { apiToken }, config: { approvedVehicleIds: roster } });
}, 120_000);

afterAll(async () => {
  await stack?.close();
  await simulator?.kill();
});

describe('provider scenarios through the pipeline', () => {
  it('a clean run completes without a throttled or failed unit, and without one 429, although the simulator enforces the 5 req/s trips tier', async () => {
    const before = await providerCounters();
    const done = await freshRun();
    expect(done).toMatchObject({ status: 'completed', progress: 100 });
    const units = await connection.units(done.id);
    expect(units.filter((u) => u.purpose === 'trips').length).toBeGreaterThanOrEqual(12);
    for (const u of units) expect(u).toMatchObject({ state: 'receipted', error_attempts: 0, throttle_requeues: 0, last_error_code: null });
    // The tier budget paced the 12 concurrent jobs: the simulator refused none of their requests.
    const after = await providerCounters();
    expect(after.requests).toBeGreaterThan(before.requests);
    expect(after.rateLimited).toBe(before.rateLimited);
    reference = await connection.dump();
    // The reference holds the fleet and its trips (a dump of nothing would prove nothing).
    expect(reference).toMatch(/# directory\.vehicle \(4\)/);
    expect(reference).not.toMatch(/# directory\.trip \(0\)/);
  }, 180_000);

  it.each<[string, Scenario[]]>([
    // 60 × 429: more than the HTTP client's 5 attempts for every job in flight, so units are re-queued.
    ['a 429 storm', [{ kind: 'rate_limit_storm', requests: 60, retryAfterSeconds: 1 }]],
    ['a 5xx burst longer than the HTTP client retries', [{ kind: 'server_errors', requests: 8, status: 503 }]],
    ['duplicated and reordered pages', [{ kind: 'duplicate_and_reorder', overlap: 2 }]],
  ])('%s ends completed with the reference dump', async (_name, list) => {
    await scenarios(list);
    try {
      const done = await freshRun();
      expect(done).toMatchObject({ status: 'completed', progress: 100 });
      await expectReferenceDump();
      const units = await connection.units(done.id);
      // Throttling is pacing, never a failure: units were re-queued, none spent an error attempt.
      if (list[0]!.kind === 'rate_limit_storm') {
        expect(units.some((u) => u.throttle_requeues > 0)).toBe(true);
        for (const u of units) expect(u.error_attempts).toBe(0);
      }
    } finally {
      await scenarios(null);
    }
  }, 180_000);

  it('a 401 mid-sync fails the sync with provider_auth_required and the connection error code; retried with the credential restored, it completes with the reference dump', async () => {
    await stack.wipeDirectory(connection.connectionId);
    await scenarios([{ kind: 'revoke_credential', afterRequests: 3 }]);
    const sync = await connection.createSync({ startFrom: START_FROM });
    const failed = await connection.settled(sync.id);
    expect(failed).toMatchObject({ status: 'failed', failureReason: 'provider_auth_required' });
    expect(failed.progress).toBeLessThan(100);
    await pollUntil(async () => (await connection.health()).last_error_code === 'provider_auth_required', { timeoutMs: 20_000, description: 'connection last_error_code' });

    await scenarios(null);
    const retried = await connection.act(sync.id, 'retry');
    expect(retried.status).toBe(200);
    const after = await connection.settled(sync.id);
    // failureReason in the comparison, so a failure says why the retried attempt failed.
    expect({ status: after.status, progress: after.progress, failureReason: after.failureReason ?? null }).toEqual({ status: 'completed', progress: 100, failureReason: null });
    await expectReferenceDump();
  }, 180_000);

  it('a directory slower than the lease does not make finished units be leased and collected again', async () => {
    await stack.wipeDirectory(connection.connectionId);
    await stack.stopContext('directory');
    let sync: PublicSync | undefined;
    try {
      sync = await connection.createSync({ startFrom: START_FROM });
      const id = sync.id;
      // Every unit published its final batch and now waits for its receipts.
      await pollUntil(async () => (await connection.units(id)).every((u) => u.awaiting), { timeoutMs: 120_000, intervalMs: 250, description: 'every unit awaiting receipts' });
      const tokens = (await connection.units(id)).map((u) => u.fencing_token);
      const requests = await providerRequests();
      // Three leases run out while the directory is down.
      await sleep(3 * LEASE_MS);
      expect((await connection.units(id)).map((u) => u.fencing_token)).toEqual(tokens);
      expect(await providerRequests()).toBe(requests);
      expect((await connection.readSync(id)).status).toBe('in_progress');
    } finally {
      await stack.startContext('directory');
    }
    expect(await connection.settled(sync.id)).toMatchObject({ status: 'completed', progress: 100 });
    await expectReferenceDump();
  }, 240_000);

  it('a cancel mid-collection leases no further unit, lets at most the pages in flight finish, keeps the in-flight leases, and the sync stays cancelled, never completed', async () => {
    await scenarios([{ kind: 'slow', requests: 10_000, delayMs: 1_500 }]);
    try {
      const sync = await connection.createSync({ startFrom: START_FROM });
      await pollUntil(async () => (await connection.units(sync.id)).some((u) => u.leased), { timeoutMs: 30_000, description: 'units in flight' });
      const cancelled = await connection.act(sync.id, 'cancel');
      expect(cancelled.status).toBe(200);
      // A cancelled sync is `failed` with failureReason `cancelled` (sync-state.ts).
      expect(await connection.readSync(sync.id)).toMatchObject({ status: 'failed', failureReason: 'cancelled' });
      const requestsAtCancel = await providerRequests();
      const atCancel = await connection.units(sync.id);
      const inFlight = atCancel.filter((u) => u.leased);
      expect(inFlight.length).toBeGreaterThan(0);
      // Spec 3 rule 2: the cancel did not end any in-flight lease.
      for (const u of inFlight) expect(u.lease_owner).not.toBeNull();

      // Long enough for the pages in flight to end and several leases to run out.
      await sleep(3 * LEASE_MS);
      const after = await connection.units(sync.id);
      const everLeased = (units: typeof after) => units.filter((u) => u.fencing_token !== '0').map((u) => u.id);
      expect(everLeased(after)).toEqual(everLeased(atCancel));
      // Each in-flight job finishes at most its current page: the stream page and its legacy enrichment.
      expect((await providerRequests()) - requestsAtCancel).toBeLessThanOrEqual(2 * inFlight.length);
      const final = await connection.readSync(sync.id);
      expect(final).toMatchObject({ status: 'failed', failureReason: 'cancelled' });
      expect(final.progress).toBeLessThan(100);
      expect(final.completedAt).toBeUndefined();
      expect((await connection.listSyncs('completed')).map((s) => s.id)).not.toContain(sync.id);
    } finally {
      await scenarios(null);
    }
  }, 120_000);

  it('a batch the directory rejects records the reason on the unit and fails the sync with it', async () => {
    // Every provider answer takes 25 s (under the 30 s request timeout): the sync cannot complete
    // before the rejection (about 10 s of unknown-connection grace) arrives.
    await scenarios([{ kind: 'slow', requests: 10_000, delayMs: 25_000 }]);
    try {
      const sync = await connection.createSync({ startFrom: START_FROM });
      const unit = await pollUntil(async () => (await connection.units(sync.id)).find((u) => u.leased), { timeoutMs: 30_000, description: 'a unit in flight' });
      // A batch of this unit for a connection the directory does not know: rejected after its grace.
      const bus = await stack.bus('forger');
      const batch: DirectoryBatchV1 = {
        batchId: `forged-${randomUUID()}`,
        connectionId: randomUUID(),
        provider: 'samsara',
        syncId: sync.id,
        unitId: unit.id,
        fencingToken: unit.fencing_token,
        kind: 'vehicles',
        records: [],
        fetchedAt: new Date().toISOString(),
        providerCursor: null,
        final: false,
      };
      await bus.publish(EVENTS.directoryBatch, subjectFor(EVENTS.directoryBatch.subject, batch.connectionId), batch, { msgId: batch.batchId });
      const failed = await connection.settled(sync.id, 60_000);
      expect(failed).toMatchObject({ status: 'failed', failureReason: 'connection_unknown' });
      const units = await connection.units(sync.id);
      expect(units.find((u) => u.id === unit.id)?.last_error_code).toBe('connection_unknown');
    } finally {
      await scenarios(null);
    }
  }, 120_000);

  it('logs no provider credential', () => {
    expect(stack.logLines.join('')).not.toContain(apiToken);
  });
});
