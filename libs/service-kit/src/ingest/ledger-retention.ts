/**
 * Retention of an ingest context's batch ledger (`ingest_batch`; issue 14, docs/reliability.md):
 * a committed or rejected batch is kept one day longer than the INGEST stream keeps messages (7
 * days), so no redelivery can reach a pruned batch and the directory's ledger reads (which look back
 * over the stream's age) still find every row they may ask for. Every process of the context runs
 * a pass an hour (the first a minute after start), deleting in chunks of 10,000 so no pass holds a
 * long transaction; concurrent passes delete disjoint or no rows.
 */
import { STREAMS } from '@switchyard/messaging';
import type { Orm } from '@switchyard/persistence';
import type { ServiceRuntime } from '../runtime.js';
import { IngestLedgerRepository } from './db/ingest-ledger.repository.js';

export const INGEST_LEDGER_RETENTION_MS = (STREAMS.INGEST.maxAgeMs ?? 7 * 86_400_000) + 86_400_000;
const CHUNK = 10_000;
const PASS_MS = 60 * 60 * 1000;
const FIRST_PASS_MS = 60 * 1000;
const ledger = new IngestLedgerRepository();

/** Deletes ledger rows committed before `now − INGEST_LEDGER_RETENTION_MS`; returns how many. */
export async function pruneIngestLedger(orm: Orm, now = new Date()): Promise<number> {
  const cutoff = new Date(now.getTime() - INGEST_LEDGER_RETENTION_MS);
  let total = 0;
  for (;;) {
    const pruned = await ledger.prune(orm.em.fork(), cutoff, CHUNK);
    total += pruned;
    if (pruned < CHUNK) return total;
  }
}

/** Starts the hourly passes for `runtime`; `stop()` ends them and waits for a pass in flight. */
export function startLedgerRetention(runtime: ServiceRuntime): { stop(): Promise<void> } {
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<unknown> = Promise.resolve();
  let stopped = false;
  const schedule = (delay: number) => {
    timer = setTimeout(() => {
      running = (runtime.state.migrated ? pruneIngestLedger(runtime.orm) : Promise.resolve(0))
        .then((pruned) => pruned > 0 && runtime.logger.info({ pruned }, 'ingest ledger pruned (retention)'))
        .catch((error: unknown) => runtime.logger.warn({ err: error }, 'ingest ledger retention: prune failed, will retry'))
        .finally(() => !stopped && schedule(PASS_MS));
    }, delay);
    timer.unref();
  };
  schedule(FIRST_PASS_MS);
  return {
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}
