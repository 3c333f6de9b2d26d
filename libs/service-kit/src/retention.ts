/**
 * The one periodic-retention schedule of every context (docs/reliability.md "Retention"): a pass in
 * every process, the first a minute after start, then hourly, each only once the schema is
 * migrated; a failed pass is logged and the next one retries. Used by the ingest ledgers
 * (ingest/ledger-retention.ts), telemetry-ingest's partition drops, fault-feed's transitions and
 * occurrences, the orchestrator's sync history and the gateway's connect sessions. Each pass deletes
 * in bounded chunks and is safe to run in several processes at once (skip-locked or idempotent
 * statements), so the schedule needs no leader.
 */
import { Inject, type BeforeApplicationShutdown, type OnApplicationBootstrap } from '@nestjs/common';
import type { Orm } from '@switchyard/persistence';
import { RUNTIME, type ServiceRuntime } from './runtime.js';

const PASS_MS = 60 * 60 * 1000;
const FIRST_PASS_MS = 60 * 1000;

/** A running retention job: `stop()` ends its passes and waits for a pass in flight. */
export interface RetentionJob {
  stop(): Promise<void>;
}

/**
 * Runs `pass` on the schedule above for `runtime`; `what` names the job in the logs, `pass`
 * returns how many rows (or partitions) went.
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

/**
 * A context's retention as a Nest provider: runs `prune()` on the schedule from bootstrap until
 * shutdown. A subclass names the job and implements one pass (`now` injectable for tests).
 */
export abstract class RetentionService implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private job: RetentionJob | undefined;
  protected abstract readonly what: string;

  constructor(@Inject(RUNTIME) protected readonly runtime: ServiceRuntime) {}

  /** One pass at `now`; returns how many rows (or partitions) went. */
  abstract prune(now?: Date): Promise<number>;

  onApplicationBootstrap() {
    this.job = startRetentionPasses(this.runtime, this.what, () => this.prune());
  }

  async beforeApplicationShutdown() {
    await this.job?.stop();
  }
}

/**
 * Repeats `step(limit)` (one bounded delete, its own statement or transaction) until one removes
 * fewer than `limit` rows; returns the total. No pass holds a long transaction, however much is due.
 */
export async function pruneInChunks(limit: number, step: (limit: number) => Promise<number>): Promise<number> {
  let total = 0;
  for (;;) {
    const pruned = await step(limit);
    total += pruned;
    if (pruned < limit) return total;
  }
}
