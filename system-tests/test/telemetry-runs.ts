/**
 * Shared steps of the suites that put telemetry into telemetry-ingest: an internal collection run
 * of the sync-orchestrator driven to its end, and an observations batch published as a collector
 * does and awaited until its ledger row is committed (telemetry and usage-reports suites).
 */
import { ingestBatchId, EVENTS, subjectFor, type MessageBus, type TelemetryBatchV1 } from '@switchyard/messaging';
import type { Observation, Provider } from '@switchyard/domain';
import { pollUntil } from '@switchyard/testing';
import { SCHEDULED_ORIGIN, SyncLifecycleService, type InternalRun } from '@switchyard/sync-orchestrator';
import type { PipelineStack } from './pipeline-stack.js';

type InternalInput = Parameters<SyncLifecycleService['createInternal']>[0];

/** Creates a scheduled internal run and waits until it completed or failed. */
export async function settledInternalRun(stack: PipelineStack, input: Omit<InternalInput, 'origin'>, timeoutMs = 120_000): Promise<InternalRun> {
  const lifecycle = stack.orchestrator.app.get(SyncLifecycleService);
  const result = await lifecycle.createInternal({ ...input, origin: SCHEDULED_ORIGIN } as InternalInput);
  if (!result.created) throw new Error(`internal run not created: ${result.reason} ${result.detail}`);
  let last: InternalRun | undefined;
  await pollUntil(
    async () => {
      last = await lifecycle.getInternal(result.run.id);
      return last?.status === 'completed' || last?.status === 'failed';
    },
    { timeoutMs, intervalMs: 250, description: `internal run ${result.run.id} settled` },
  );
  if (!last) throw new Error(`internal run ${result.run.id} vanished`);
  return last;
}

/** Publishes `records` as one final observations batch of the connection and waits until telemetry-ingest committed it (`stack.sql` reads `$telemetry.` as its schema). */
export async function ingestObservations(stack: Pick<PipelineStack, 'sql'>, bus: MessageBus, target: { connectionId: string; provider: Provider }, records: Observation[]): Promise<void> {
  const unitId = String(Math.floor(Math.random() * 1e9));
  const batch = {
    batchId: ingestBatchId({ connectionId: target.connectionId, kind: 'observations', unitId, fencingToken: '1', pageKey: 'p', part: 0 }),
    connectionId: target.connectionId,
    provider: target.provider,
    syncId: 'sync_01JD0000000000000000000000',
    unitId,
    fencingToken: '1',
    kind: 'observations',
    records,
    fetchedAt: new Date().toISOString(),
    providerCursor: null,
    final: true,
  } as TelemetryBatchV1;
  await bus.publish(EVENTS.telemetryBatch, subjectFor(EVENTS.telemetryBatch.subject, batch.connectionId), batch, { msgId: batch.batchId });
  await pollUntil(async () => (await stack.sql<{ status: string }>(`select status from $telemetry.ingest_batch where batch_id = ?`, [batch.batchId]))[0]?.status === 'committed', {
    timeoutMs: 20_000,
    description: `batch ${batch.batchId} committed`,
  });
}
