/**
 * Dataset status on the real PostgreSQL and NATS: batches go through the directory's ingest
 * consumer and health observations through its connection-health consumer, as the collectors
 * publish them; DatasetStatusService reads what they committed. Covers pending, available, stale
 * (a batch fetched an hour ago), degraded with the provider code, health that never moves
 * backwards when an older observation arrives late, and health per dataset: an observation
 * naming one dataset changes only that dataset's status, one naming none (an older publisher)
 * every dataset's.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { available, missing } from '@switchyard/domain';
import { connectionHealthMsgId, type ConnectionHealthV1, DIRECTORY_DATASETS, type DirectoryBatchV1, type DirectoryDataset, EVENTS, ingestBatchId, subjectFor } from '@switchyard/messaging';
import { pollUntil, sleep, startIngestHarness, type IngestHarness } from '@switchyard/testing';
import { directoryService, startDirectory } from '../src/index.js';
import { DatasetStatusService } from '../src/services/dataset-status.service.js';

let x: IngestHarness;
let unit = 0;
let sequence = 0;
const status = (connectionId: string, dataset: DirectoryDataset = 'trips') => new DatasetStatusService().status(x.h.service.runtime.orm.em.fork(), connectionId, dataset);
/** The status (and errorCode) of every dataset of the connection. */
async function statuses(connectionId: string): Promise<Record<string, string>> {
  const entries = await Promise.all(
    DIRECTORY_DATASETS.map(async (dataset) => {
      const { status: value, errorCode } = await status(connectionId, dataset);
      return [dataset, `${value}:${errorCode}`] as const;
    }),
  );
  return Object.fromEntries(entries);
}

async function trips(connectionId: string, fetchedAt: string): Promise<void> {
  const unitId = String(++unit);
  const batch = {
    batchId: ingestBatchId({ connectionId, kind: 'trips', unitId, fencingToken: '1', pageKey: 'p', part: 0 }),
    connectionId,
    provider: 'samsara',
    syncId: 'sync_01JD0000000000000000000000',
    unitId,
    fencingToken: '1',
    kind: 'trips',
    records: [
      {
        provider: 'samsara',
        sourceId: `t${unitId}`,
        vehicleSourceId: 'v1',
        driverSourceId: null,
        startedAt: '2026-11-01T08:00:00.000Z',
        endedAt: '2026-11-01T08:10:00.000Z',
        durationMs: 600_000,
        distanceKm: available(3, 'test'),
        distanceBasis: 'gps',
        startLocation: missing('test'),
        endLocation: missing('test'),
        fetchedAt,
      },
    ],
    fetchedAt,
    providerCursor: null,
    final: true,
  } as DirectoryBatchV1;
  await x.h.client.publish(EVENTS.directoryBatch, subjectFor(EVENTS.directoryBatch.subject, connectionId), batch, { msgId: batch.batchId });
  await pollUntil(async () => (await x.sql<{ status: string }>(`select status from ${x.t('ingest_batch')} where batch_id = ?`, [batch.batchId]))[0]?.status === 'committed', { timeoutMs: 15_000 });
}

/** `datasets` undefined: an event of a publisher from before the field. */
async function health(connectionId: string, outcome: 'success' | 'failure', observedAt: string, errorCode: string | null = null, datasets?: DirectoryDataset[]): Promise<void> {
  const event: ConnectionHealthV1 = { connectionId, observedAt, outcome, errorCode, scope: 'core', nextRetryAt: null, sequence: String(++sequence), ...(datasets ? { datasets } : {}) };
  await x.h.client.publish(EVENTS.connectionHealth, subjectFor(EVENTS.connectionHealth.subject, connectionId), event, { msgId: connectionHealthMsgId(event) });
}

/** Waits until the newest stored observation of `column` of `dataset` is at least `observedAt`. */
async function projected(connectionId: string, column: 'last_success_at' | 'last_failure_at', observedAt: string, dataset: DirectoryDataset = 'trips'): Promise<void> {
  await pollUntil(
    async () => (await x.sql(`select 1 from ${x.t('dataset_health')} where connection_id = ? and dataset = ? and scope = 'core' and ${column} >= ?::timestamptz`, [connectionId, dataset, observedAt])).length === 1,
    { timeoutMs: 15_000 },
  );
}

describe('dataset status', () => {
  beforeAll(async () => {
    x = await startIngestHarness(directoryService, startDirectory);
  });
  afterAll(() => x?.close());

  it('is pending, then stale for an old fetch, then available; the times say what they mean', async () => {
    const { connectionId } = await x.connect();
    expect(await status(connectionId)).toEqual({ status: 'pending', fetchedAt: null, capturedAt: null, publishedAt: null, errorCode: null });

    const hourAgo = new Date(Date.now() - 3_600_000).toISOString();
    await trips(connectionId, hourAgo);
    const stale = await status(connectionId);
    expect(stale).toMatchObject({ status: 'stale', fetchedAt: hourAgo, capturedAt: hourAgo, errorCode: null });
    expect(Date.now() - Date.parse(stale.publishedAt!)).toBeLessThan(60_000);

    const now = new Date().toISOString();
    await trips(connectionId, now);
    expect(await status(connectionId)).toMatchObject({ status: 'available', fetchedAt: now, capturedAt: now });
  });

  it('is degraded with the provider code after a failure, keeps it against an older success, clears on a newer one', async () => {
    const { connectionId } = await x.connect();
    await trips(connectionId, new Date().toISOString());
    const failedAt = new Date().toISOString();
    await health(connectionId, 'failure', failedAt, 'provider_unavailable');
    await projected(connectionId, 'last_failure_at', failedAt);
    expect(await status(connectionId)).toMatchObject({ status: 'degraded', errorCode: 'provider_unavailable' });

    await health(connectionId, 'success', new Date(Date.parse(failedAt) - 60_000).toISOString());
    await health(connectionId, 'failure', new Date(Date.parse(failedAt) - 30_000).toISOString(), 'provider_throttled');
    // Older observations change nothing, so there is nothing to poll for: give the consumer time to handle them.
    await sleep(1_500);
    expect(await status(connectionId)).toMatchObject({ status: 'degraded', errorCode: 'provider_unavailable' });

    const recovered = new Date(Date.parse(failedAt) + 1_000).toISOString();
    await health(connectionId, 'success', recovered);
    await projected(connectionId, 'last_success_at', recovered);
    expect(await status(connectionId)).toMatchObject({ status: 'available', errorCode: null });
  });

  it('is per dataset: a trips failure degrades trips only, a trips success clears only trips, an event naming no dataset degrades all', async () => {
    const { connectionId } = await x.connect();
    await trips(connectionId, new Date().toISOString());
    const base = Date.now();
    const at = (s: number) => new Date(base + s * 1000).toISOString();

    await health(connectionId, 'failure', at(1), 'provider_scope_mismatch', ['trips']);
    await health(connectionId, 'success', at(1), null, ['vehicles']);
    await projected(connectionId, 'last_failure_at', at(1), 'trips');
    await projected(connectionId, 'last_success_at', at(1), 'vehicles');
    expect(await statuses(connectionId)).toEqual({ vehicles: 'pending:null', drivers: 'pending:null', groups: 'pending:null', trips: 'degraded:provider_scope_mismatch' });

    // Telemetry and fault work feeds no dataset: its failure changes nothing.
    await health(connectionId, 'failure', at(2), 'provider_unavailable', []);
    await health(connectionId, 'failure', at(2), 'provider_auth_required', ['drivers']);
    await projected(connectionId, 'last_failure_at', at(2), 'drivers');
    expect(await statuses(connectionId)).toEqual({ vehicles: 'pending:null', drivers: 'degraded:provider_auth_required', groups: 'pending:null', trips: 'degraded:provider_scope_mismatch' });

    await health(connectionId, 'success', at(3), null, ['trips']);
    await projected(connectionId, 'last_success_at', at(3), 'trips');
    expect(await statuses(connectionId)).toEqual({ vehicles: 'pending:null', drivers: 'degraded:provider_auth_required', groups: 'pending:null', trips: 'available:null' });

    // An older publisher's event (no datasets) counts for every dataset, as health per connection did.
    await health(connectionId, 'failure', at(4), 'provider_unavailable');
    await Promise.all(DIRECTORY_DATASETS.map((d) => projected(connectionId, 'last_failure_at', at(4), d)));
    expect(await statuses(connectionId)).toEqual({ vehicles: 'degraded:provider_unavailable', drivers: 'degraded:provider_unavailable', groups: 'degraded:provider_unavailable', trips: 'degraded:provider_unavailable' });

    // A newer groups success clears groups only; an older trips success changes nothing.
    await health(connectionId, 'success', at(5), null, ['groups']);
    await health(connectionId, 'success', at(3.5), null, ['trips']);
    await projected(connectionId, 'last_success_at', at(5), 'groups');
    await sleep(1_000);
    expect(await statuses(connectionId)).toEqual({ vehicles: 'degraded:provider_unavailable', drivers: 'degraded:provider_unavailable', groups: 'pending:null', trips: 'degraded:provider_unavailable' });
  });
});
