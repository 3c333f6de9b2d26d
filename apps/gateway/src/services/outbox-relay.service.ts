/**
 * Publishes the gateway's outbox to JetStream (connection configuration and application grant
 * events; each row goes out under the event definition whose subject pattern matches it, so the
 * bus validates it against that event's schema).
 * One relay publishes at a time across replicas (transaction-scoped advisory lock), rows go out in
 * id order, each with its stable msgId, and are marked published in the same transaction that
 * locked them. A crash after publishing but before commit republishes the same msgIds: JetStream's
 * duplicate window drops them and consumers ignore revisions they already hold.
 */
import { Inject, Injectable, type BeforeApplicationShutdown, type OnApplicationBootstrap } from '@nestjs/common';
import { EVENTS, subjectMatches, type EventDefinition } from '@switchyard/messaging';
import type { Orm } from '@switchyard/persistence';
import { RUNTIME, type ServiceRuntime } from '@switchyard/service-kit';
import { tableNamer } from '../db/repositories/sql.js';

const BATCH = 100;
const IDLE_POLL_MS = 500;
const LOCK_KEY = 0x53574f42; // "SWOB"
/** Every event the gateway writes to its outbox. */
const OUTBOX_EVENTS: readonly EventDefinition[] = [EVENTS.connectionConfigChanged, EVENTS.applicationGrantChanged];

function eventFor(subject: string): EventDefinition {
  const event = OUTBOX_EVENTS.find((e) => subjectMatches(e.subject, subject));
  if (!event) throw new Error(`outbox row with undeclared subject ${subject}`);
  return event;
}

@Injectable()
export class OutboxRelay implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<unknown> | undefined;
  private stopped = false;
  private readonly t: (name: string) => string;
  private readonly orm: Orm;

  constructor(@Inject(RUNTIME) private readonly runtime: ServiceRuntime) {
    this.orm = runtime.orm;
    this.t = tableNamer(runtime.orm);
  }

  onApplicationBootstrap() {
    this.schedule(0);
  }

  async beforeApplicationShutdown() {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
  }

  /** Publishes what is pending now; returns how many rows went out. Exposed for tests. */
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
      this.running = this.flush()
        .catch((error: unknown) => this.runtime.logger.warn({ err: error }, 'outbox relay: publish failed, will retry'))
        .finally(() => this.schedule(IDLE_POLL_MS));
    }, delay);
  }

  private async publishBatch(): Promise<number> {
    return this.orm.em.fork().transactional(async (em) => {
      const conn = em.getConnection();
      const ctx = em.getTransactionContext();
      const [lock] = await conn.execute<{ locked: boolean }[]>('select pg_try_advisory_xact_lock(?, hashtext(current_schema())) as locked', [LOCK_KEY], 'all', ctx);
      if (!lock?.locked) return 0;
      const rows = await conn.execute<{ id: string; subject: string; msg_id: string; payload: unknown }[]>(
        `select id, subject, msg_id, payload from ${this.t('outbox')} where published_at is null order by id limit ${BATCH}`,
        [],
        'all',
        ctx,
      );
      for (const row of rows) {
        await this.runtime.bus.publish(eventFor(row.subject), row.subject, row.payload as never, { msgId: row.msg_id });
      }
      if (rows.length > 0) {
        await conn.execute(`update ${this.t('outbox')} set published_at = now() where id in (${rows.map(() => '?').join(',')})`, rows.map((r) => r.id), 'run', ctx);
      }
      return rows.length;
    });
  }
}
