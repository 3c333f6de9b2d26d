/**
 * Helpers shared by the fault suites (faults, fault-consumer, fault-scenarios, fault-simulator*): a connection
 * projected by the directory and fault-feed with a reader key, fault batches published into
 * fault-feed's ingest consumer as the collectors publish them (waiting for their commit), the
 * whole HTTP feed walked with its cursor, and a recorder of the `fleet.faults` subjects. Every
 * HTTP response is validated against the OpenAPI document (gw.call).
 */
import { expect } from '@jest/globals';
import { newSyncId, type Provider } from '@switchyard/domain';
import { EVENTS, ingestBatchId, subjectFor, type FaultBatchV1, type FaultRecordV1, type FaultSnapshotV1, type FaultTransitionV1, type MessageHeaders, type Subscription } from '@switchyard/messaging';
import { pollUntil } from '@switchyard/testing';
import { SCHEDULED_ORIGIN, SyncLifecycleService } from '@switchyard/sync-orchestrator';
import { execute } from './gateway-client.js';
import type { PipelineConnection, PipelineStack } from './pipeline-stack.js';
import { newUnit, readConnection, readKey } from './reads-fixture.js';
import type { TestGateway } from './support.js';

export type FaultEvent = { id: string; sequence: number; connection_id: string; occurrence_id: string; vehicle_id: string; kind: 'opened' | 'cleared'; observed_at: string; bootstrap: boolean };
export type EventsPage = { events: FaultEvent[]; nextCursor: string; hasMore: boolean };

/** SQL on fault-feed's schema: `$faults.` stands for it. */
export function faultSql<T>(gw: TestGateway, text: string, params: unknown[] = []): Promise<T[]> {
  const schema = gw.faultFeed!.runtime.orm.em.config.get('schema');
  return execute<T>(gw.faultFeed!, text.replaceAll('$faults.', `"${schema}".`), params);
}

/** A connection of `provider` projected by the directory and fault-feed, and a reader key. */
export async function faultConnection(gw: TestGateway, provider: Provider = 'samsara'): Promise<{ connectionId: string; key: { id: string; headers: Record<string, string> } }> {
  const connectionId = await readConnection(gw, {}, provider);
  await pollUntil(async () => (await faultSql(gw, `select 1 from $faults.connection_config where connection_id = ?::uuid`, [connectionId])).length === 1, { timeoutMs: 15_000, description: 'config in fault-feed' });
  return { connectionId, key: await readKey(gw, [connectionId]) };
}

/** Publishes one fault batch (snapshots or records, one pass of its own sync) and waits until fault-feed committed it; returns its batch id. */
export async function ingestFaults(gw: TestGateway, connectionId: string, provider: Provider, records: FaultSnapshotV1[] | FaultRecordV1[], fetchedAt?: string): Promise<string> {
  const unitId = newUnit();
  const kind = records[0]?.model === 'explicit_records' || (records.length === 0 && provider === 'geotab') ? 'fault_records' : 'fault_snapshots';
  const batch = {
    batchId: ingestBatchId({ connectionId, kind, unitId, fencingToken: '1', pageKey: 'p', part: 0 }),
    connectionId,
    provider,
    // Each call is its own pass (sync): explicit records bootstrap every batch of the first one.
    syncId: newSyncId(),
    unitId,
    fencingToken: '1',
    kind,
    records,
    fetchedAt: fetchedAt ?? records[0]?.fetchedAt ?? new Date().toISOString(),
    providerCursor: null,
    final: true,
  } as FaultBatchV1;
  await publishFaultBatch(gw, batch);
  return batch.batchId;
}

/** Publishes a built batch (a redelivery: the same batch again) and waits for its commit. */
export async function publishFaultBatch(gw: TestGateway, batch: FaultBatchV1): Promise<void> {
  await gw.bus.publish(EVENTS.faultBatch, subjectFor(EVENTS.faultBatch.subject, batch.connectionId), batch, { msgId: `${batch.batchId}:${Date.now()}` });
  await pollUntil(async () => (await faultSql<{ status: string }>(gw, `select status from $faults.ingest_batch where batch_id = ?`, [batch.batchId]))[0]?.status === 'committed', {
    timeoutMs: 20_000,
    description: `fault batch ${batch.batchId} committed`,
  });
}

/** Every event after `cursor`, following nextCursor while hasMore; the events and the last cursor. */
export async function drainFeed(gw: TestGateway, connectionId: string, headers: Record<string, string>, cursor?: string, limit = 2): Promise<{ events: FaultEvent[]; cursor: string }> {
  const events: FaultEvent[] = [];
  for (;;) {
    const res = await gw.call('GET', `/v1/connections/${connectionId}/fault-events?limit=${limit}${cursor ? `&cursor=${cursor}` : ''}`, { headers });
    expect(res.status).toBe(200);
    const page = res.body as EventsPage;
    events.push(...page.events);
    cursor = page.nextCursor;
    if (!page.hasMore) return { events, cursor };
  }
}

/** Waits until `published` holds `count` transitions of `connectionId`; those transitions. */
function transitionsOf(published: readonly FaultTransitionV1[], connectionId: string, count: number, timeoutMs: number): Promise<FaultTransitionV1[]> {
  return pollUntil(
    () => {
      const found = published.filter((p) => p.connectionId === connectionId);
      return found.length >= count ? found : undefined;
    },
    { timeoutMs, description: `${count} transitions of ${connectionId} on the subjects` },
  );
}

/** Records every `fleet.faults` message the durable `durable` receives (payload and headers). */
export async function recordSubjects(gw: TestGateway, durable: string): Promise<{ published: FaultTransitionV1[]; headersOf: Map<string, MessageHeaders>; sub: Subscription; of(connectionId: string, count: number): Promise<FaultTransitionV1[]> }> {
  const published: FaultTransitionV1[] = [];
  const headersOf = new Map<string, MessageHeaders>();
  const sub = await gw.bus.consume({ durable, event: EVENTS.faultTransition, ackWaitMs: 30_000, maxDeliver: 3, maxAckPending: 256 }, async ({ payload, headers }) => {
    published.push(payload);
    headersOf.set(payload.transitionId, { ...headers });
  });
  return { published, headersOf, sub, of: (connectionId: string, count: number) => transitionsOf(published, connectionId, count, 10_000) };
}

/** Sets a simulator's clock (SIM_CLOCK_FACTOR 0: it stands still until the next call). */
export async function setSimClock(simUrl: string, nowMs: number): Promise<void> {
  const res = await fetch(`${simUrl}/_sim/clock`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ nowMs }) });
  expect(res.status).toBe(200);
}

/** Sets (`scenarios` given) or clears the scenarios of one simulator account. */
export async function setSimScenarios(simUrl: string, account: string, scenarios?: unknown[]): Promise<void> {
  const res = await fetch(
    `${simUrl}/_sim/accounts/${encodeURIComponent(account)}/scenarios`,
    scenarios === undefined ? { method: 'DELETE' } : { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify(scenarios) },
  );
  expect(res.status).toBe(scenarios === undefined ? 204 : 200);
}

/**
 * One faults collection of the pipeline's sync-orchestrator: an internal run of the scheduler's
 * kind over [startFrom, intervalEnd) (default: the last minute); resolves with its final status.
 */
export async function collectFaultsRun(stack: PipelineStack, connectionId: string, window?: { startFrom: Date; intervalEnd: Date }): Promise<string> {
  const lifecycle = stack.orchestrator.app.get(SyncLifecycleService);
  const intervalEnd = window?.intervalEnd ?? new Date();
  const startFrom = window?.startFrom ?? new Date(intervalEnd.getTime() - 60_000);
  const result = await lifecycle.createInternal({ connectionId, purposes: ['faults'], startFrom, intervalEnd, origin: SCHEDULED_ORIGIN });
  if (!result.created) throw new Error(`internal run not created: ${result.reason} ${result.detail}`);
  const run = await pollUntil(
    async () => {
      const r = await lifecycle.getInternal(result.run.id);
      return r?.status === 'completed' || r?.status === 'failed' ? r : undefined;
    },
    { timeoutMs: 90_000, intervalMs: 100, description: `faults run ${result.run.id} settled` },
  );
  return run.status;
}

/** The whole HTTP feed of a pipeline connection, walked with its cursor (each page validated against the OpenAPI document). */
export async function walkPipelineFeed(connection: PipelineConnection, limit = 7): Promise<FaultEvent[]> {
  const events: FaultEvent[] = [];
  let cursor: string | undefined;
  for (;;) {
    const res = await connection.read(`/v1/connections/${connection.connectionId}/fault-events?limit=${limit}${cursor ? `&cursor=${cursor}` : ''}`);
    expect(res.status).toBe(200);
    const page = res.body as EventsPage;
    events.push(...page.events);
    cursor = page.nextCursor;
    if (!page.hasMore) return events;
  }
}

/** Records every `fleet.faults` payload a new durable consumer on the pipeline's bus receives; `of` waits for `count` of one connection. */
export async function recordPipelineSubjects(stack: PipelineStack, durable: string): Promise<{ sub: Subscription; of(connectionId: string, count: number): Promise<FaultTransitionV1[]> }> {
  const published: FaultTransitionV1[] = [];
  const bus = await stack.bus(durable);
  const sub = await bus.consume({ durable, event: EVENTS.faultTransition, ackWaitMs: 30_000, maxDeliver: 3, maxAckPending: 256 }, async ({ payload }) => {
    published.push(payload);
  });
  return { sub, of: (connectionId: string, count: number) => transitionsOf(published, connectionId, count, 15_000) };
}

/**
 * Telemetry `faultsObservedAt` of one vehicle through /v1 (the pipeline needs telemetry-ingest),
 * once it is `expected` (an exact time, or a test of the time) — fault-feed's observation event
 * reaches telemetry-ingest after the batch committed; fails with the last value seen otherwise.
 */
export async function awaitFaultsObservedAt(connection: PipelineConnection, vehicle: string, expected: string | ((at: string | null) => boolean)): Promise<void> {
  const accepts = typeof expected === 'string' ? (at: string | null) => at === expected : expected;
  let last: string | null = null;
  await pollUntil(
    async () => {
      const res = await connection.read(`/v1/connections/${connection.connectionId}/vehicles/${vehicle}/telemetry`);
      expect(res.status).toBe(200);
      last = (res.body as { faultsObservedAt: string | null }).faultsObservedAt;
      return accepts(last) || undefined;
    },
    { timeoutMs: 15_000, intervalMs: 100, description: `faultsObservedAt of ${vehicle}` },
  ).catch(() => expect({ vehicle, faultsObservedAt: last, accepted: false }).toEqual({ vehicle, faultsObservedAt: expected, accepted: true }));
}
