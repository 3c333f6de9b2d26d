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

/** A running retention job: `stop()` ends its passes and waits for a pass in flight. */
export interface RetentionJob {
  stop(): Promise<void>;
}

/**
 * Runs `pass` in every process of a service: the first a minute after start, then hourly, each
 * only once the schema is migrated; a failed pass is logged and retried at the next one. The
 * schedule of the ledger's retention and of every other retention job (telemetry-ingest's partition
 * drops, fault-feed's transitions); `what` names the job in the logs, `pass` returns how many rows (or partitions) went.
 */
export function startRetentionPasses(runtime: ServiceRuntime, what: string, pass: (orm: Orm) => Promise<number>): RetentionJob {
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<unknown> = Promise.resolve();
  let stopped = false;
  const schedule = (delay: number) => {
    timer = setTimeout(() => {
      running = (runtime.state.migrated ? pass(runtime.orm) : Promise.resolve(0))
        .then((pruned) => pruned > 0 && runtime.logger.info({ pruned }, `${what} pruned (retention)`))
        .catch((error: unknown) => runtime.logger.warn({ err: error }, `${what} retention: prune failed, will retry`))
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

/** Starts the hourly ledger passes for `runtime`. */
export function startLedgerRetention(runtime: ServiceRuntime): RetentionJob {
  return startRetentionPasses(runtime, 'ingest ledger', (orm) => pruneIngestLedger(orm));
}
