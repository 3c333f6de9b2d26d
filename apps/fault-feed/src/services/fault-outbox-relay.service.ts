/**
 * Publishes committed fault transitions (the outbox: fault_transition rows with published_at NULL)
 * to `fleet.faults.<connectionId>.<opened|cleared>`, msgId = transition id.
 * One relay publishes at a time across processes (transaction-scoped advisory lock), rows go out
 * in (connection, sequence) order and are marked in the transaction that read them. A crash after
 * publishing but before the mark republishes the same msgIds: the FAULTS duplicate window drops
 * them and consumers keep the highest sequence they applied. The consumer calls `flush()` after
 * each commit (so transitions precede the batch's receipt); a 1 s poll catches anything a failed
 * flush left behind.
 */
import { Inject, Injectable, type BeforeApplicationShutdown, type OnApplicationBootstrap } from '@nestjs/common';
import { INGEST_EVENTS, subjectFor, type FaultTransitionV1 } from '@switchyard/messaging';
import { RUNTIME, type ServiceRuntime } from '@switchyard/service-kit';
import { FaultRepository } from '../db/repositories/fault.repository.js';

const BATCH = 200;
const IDLE_POLL_MS = 1_000;

@Injectable()
export class FaultOutboxRelay implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<unknown> | undefined;
  private stopped = false;
  private readonly repository = new FaultRepository();

  constructor(@Inject(RUNTIME) private readonly runtime: ServiceRuntime) {}

  onApplicationBootstrap() {
    this.schedule(IDLE_POLL_MS);
  }

  async beforeApplicationShutdown() {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
  }

  /** Publishes everything pending now; returns how many transitions went out. */
  async flush(): Promise<number> {
    let total = 0;
    for (;;) {
      const sent = await this.publishBatch();
      total += sent;
      if (sent < BATCH) return total;
    }
  }

  private schedule(delay: number) {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      if (!this.runtime.state.migrated) return this.schedule(IDLE_POLL_MS);
      this.running = this.flush()
        .catch((error: unknown) => this.runtime.logger.warn({ err: error }, 'fault outbox relay: publish failed, will retry'))
        .finally(() => this.schedule(IDLE_POLL_MS));
    }, delay);
  }

  private publishBatch(): Promise<number> {
    return this.runtime.orm.em.fork().transactional(async (em) => {
      await this.repository.lockRelay(em);
      const rows = await this.repository.unpublished(em, BATCH);
      for (const row of rows) {
        const payload = row.payload as FaultTransitionV1;
        await this.runtime.bus.publish(INGEST_EVENTS.faultTransition, subjectFor(INGEST_EVENTS.faultTransition.subject, row.connection_id, row.kind), payload, { msgId: row.id });
      }
      await this.repository.markPublished(em, rows.map((r) => r.id));
      return rows.length;
    });
  }
}
