/**
 * Retention of an ingest context's batch ledger (`ingest_batch`; issue 14, docs/reliability.md):
 * a committed or rejected batch is kept one day longer than the INGEST stream keeps messages (7
 * days), so no redelivery can reach a pruned batch and the directory's ledger reads (which look back
 * over the stream's age) still find every row they may ask for. Every process of the context runs
 * a pass an hour (the first a minute after start; service-kit retention.ts), deleting in chunks of 10,000 so no pass holds a
 * long transaction; concurrent passes delete disjoint or no rows.
 */
import { STREAMS } from '@switchyard/messaging';
import type { Orm } from '@switchyard/persistence';
import type { ServiceRuntime } from '../runtime.js';
import { pruneInChunks, startRetentionPasses, type RetentionJob } from '../retention.js';
import { IngestLedgerRepository } from './db/ingest-ledger.repository.js';

export const INGEST_LEDGER_RETENTION_MS = (STREAMS.INGEST.maxAgeMs ?? 7 * 86_400_000) + 86_400_000;
const CHUNK = 10_000;
const ledger = new IngestLedgerRepository();

/** Deletes ledger rows committed before `now − INGEST_LEDGER_RETENTION_MS`; returns how many. */
export function pruneIngestLedger(orm: Orm, now = new Date()): Promise<number> {
  const cutoff = new Date(now.getTime() - INGEST_LEDGER_RETENTION_MS);
  return pruneInChunks(CHUNK, (limit) => ledger.prune(orm.em.fork(), cutoff, limit));
}

/** Starts the hourly ledger passes for `runtime`. */
export function startLedgerRetention(runtime: ServiceRuntime): RetentionJob {
  return startRetentionPasses(runtime, 'ingest ledger', (orm) => pruneIngestLedger(orm));
}
