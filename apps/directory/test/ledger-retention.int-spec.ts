/**
 * Retention of the ingest batch ledger (issue 14, item 4; libs/service-kit ledger-retention.ts) on
 * the directory's real schema: a pass deletes committed and rejected batches older than the INGEST
 * stream's age plus a day (8 days) and keeps younger ones; a second pass deletes nothing. Mutation
 * tried: the cutoff computed without the retention (`now`) — the younger rows are deleted too.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { INGEST_LEDGER_RETENTION_MS, pruneIngestLedger } from '@switchyard/service-kit';
import { startIngestHarness, type IngestHarness } from '@switchyard/testing';
import { directoryService, startDirectory } from '../src/index.js';

const DAY = 86_400_000;
let x: IngestHarness;

beforeAll(async () => {
  x = await startIngestHarness(directoryService, startDirectory);
});

afterAll(async () => {
  await x?.close();
});

async function batch(status: 'committed' | 'rejected', ageMs: number): Promise<string> {
  const id = `retention-${randomUUID()}`;
  const at = new Date(Date.now() - ageMs).toISOString();
  await x.sql(`insert into ${x.t('ingest_batch')} (batch_id, connection_id, kind, fetched_at, status, records, committed_at) values (?, ?::uuid, 'vehicles', ?::timestamptz, ?, 0, ?::timestamptz)`, [id, randomUUID(), at, status, at]);
  return id;
}

describe('ingest ledger retention', () => {
  it('prunes batches older than 8 days, keeps younger ones', async () => {
    expect(INGEST_LEDGER_RETENTION_MS).toBe(8 * DAY);
    const old = [await batch('committed', 9 * DAY), await batch('rejected', 30 * DAY)];
    const young = [await batch('committed', 7 * DAY), await batch('committed', 60_000)];
    const pruned = await pruneIngestLedger(x.h.service.runtime.orm);
    const left = (await x.sql<{ batch_id: string }>(`select batch_id from ${x.t('ingest_batch')} where batch_id like 'retention-%'`)).map((r) => r.batch_id);
    process.stdout.write(`[ledger-retention] pass pruned ${pruned} batch(es) older than ${INGEST_LEDGER_RETENTION_MS / DAY} days\n`);
    expect(pruned).toBe(old.length);
    expect(left.sort()).toEqual([...young].sort());
    expect(await pruneIngestLedger(x.h.service.runtime.orm)).toBe(0);
  });
});
