/**
 * Real provider shapes for the driver and group read suites: spawns a provider simulator, reads
 * its drivers and groups through the provider adapter (`adapter.drivers()` / `adapter.groups()`,
 * page by page), turns each page into directory batches with the collectors' batch builder
 * (sync-orchestrator `pageBatches`) and publishes them into the directory's ingest consumer, waiting
 * for every batch's commit — the path a scheduled drivers/groups collection takes.
 */
import { pageBatches } from '@switchyard/sync-orchestrator';
import type { Provider } from '@switchyard/domain';
import { type DirectoryBatchV1, EVENTS, subjectFor } from '@switchyard/messaging';
import { createGeotabAdapter, createMotiveAdapter, createSamsaraAdapter, type Page, type ProviderAdapter } from '@switchyard/providers';
import { pollUntil, spawnSimulator, type NodeProcess } from '@switchyard/testing';
import { directorySql } from './reads-fixture.js';
import type { TestGateway } from './support.js';

const SECRET = 'sim-secret-not-logged';

export async function simulatedAdapter(provider: Provider): Promise<{ adapter: ProviderAdapter; simulator: NodeProcess }> {
  const common = { SIM_VEHICLES: '3', SIM_SEED: `reads-${provider}`, SIM_CLOCK_FACTOR: '0' };
  if (provider === 'samsara') {
    const { process, url } = await spawnSimulator('samsara', { ...common, SAMSARA_API_TOKENS: SECRET });
    return { simulator: process, adapter: createSamsaraAdapter({ provider, baseUrl: url, credentials: { apiToken: SECRET } }) };
  }
  if (provider === 'motive') {
    const { process, url } = await spawnSimulator('motive', { ...common, MOTIVE_API_KEYS: SECRET });
    return { simulator: process, adapter: createMotiveAdapter({ provider, baseUrl: url, credentials: { apiKey: SECRET } }) };
  }
  const { process, url } = await spawnSimulator('geotab', { ...common, GEOTAB_PASSWORD: SECRET });
  return {
    simulator: process,
    adapter: createGeotabAdapter({ provider, baseUrl: url, credentials: { database: 'switchyard_demo', userName: 'sandbox@switchyard.example', password: SECRET } }),
  };
}

let unitCounter = Math.floor(Math.random() * 1e9);

/** Collects one listing page by page into batches of one unit and waits until the directory committed them; returns the record count. */
export async function collectInto<K extends 'drivers' | 'groups'>(
  gw: TestGateway,
  connectionId: string,
  provider: Provider,
  kind: K,
  list: (cursor: string | null) => Promise<Page<unknown>>,
): Promise<number> {
  const unitId = String(++unitCounter);
  // Each listing is a sync of its own (one unit, one roster pass), as a scheduled run's drivers or groups unit.
  const unit = {
    unitId,
    syncId: `sync_01JD${unitId.padStart(22, '0')}`,
    connectionId,
    purpose: kind,
    passUnits: 1,
    vehicleSourceId: '',
    windowStart: null,
    windowEnd: null,
    attempt: 1,
    fencingToken: '1',
    providerCursor: null,
    leaseExpiresAt: new Date(Date.now() + 60_000).toISOString(),
  } as Parameters<typeof pageBatches>[0]['unit'];
  let cursor: string | null = null;
  let count = 0;
  const batchIds: string[] = [];
  for (let pages = 0; pages < 50; pages++) {
    const page = await list(cursor);
    const batches: DirectoryBatchV1[] = pageBatches<'drivers' | 'groups'>({ unit, provider, kind, records: page.items as never, pageKey: cursor ?? 'start', providerCursor: page.next, last: page.next === null, fetchedAt: new Date().toISOString() });
    for (const batch of batches) {
      await gw.bus.publish(EVENTS.directoryBatch, subjectFor(EVENTS.directoryBatch.subject, connectionId), batch, { msgId: batch.batchId });
      batchIds.push(batch.batchId);
    }
    count += page.items.length;
    cursor = page.next;
    if (cursor === null) break;
  }
  await pollUntil(
    async () => {
      const rows = await directorySql<{ n: number }>(gw, (t) => `select count(*)::int as n from ${t('ingest_batch')} where batch_id = any(?::text[]) and status = 'committed'`, [`{${batchIds.map((id) => `"${id}"`).join(',')}}`]);
      return rows[0]?.n === batchIds.length;
    },
    { timeoutMs: 30_000, description: `${kind} batches committed` },
  );
  return count;
}
