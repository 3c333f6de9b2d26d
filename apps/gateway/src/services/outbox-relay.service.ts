/**
 * Publishes the gateway's outbox to JetStream (connection configuration and application grant
 * events; each row goes out under the event definition whose subject pattern matches it, so the
 * bus validates it against that event's schema).
 * One relay publishes at a time across replicas (transaction-scoped advisory lock), rows go out in
 * id order, each with its stable msgId, and are marked published in the same transaction that
 * locked them. A crash after publishing but before commit republishes the same msgIds: JetStream's
 * duplicate window drops them and consumers ignore revisions they already hold.
 */
import { Inject, Injectable } from '@nestjs/common';
import { EVENTS, subjectMatches, type EventDefinition } from '@switchyard/messaging';
import { tableNamer, type Em } from '@switchyard/persistence';
import { PollingOutboxRelay, RUNTIME, type ServiceRuntime } from '@switchyard/service-kit';

const LOCK_KEY = 0x53574f42; // "SWOB"
/** Every event the gateway writes to its outbox. */
const OUTBOX_EVENTS: readonly EventDefinition[] = [EVENTS.connectionConfigChanged, EVENTS.applicationGrantChanged];

function eventFor(subject: string): EventDefinition {
  const event = OUTBOX_EVENTS.find((e) => subjectMatches(e.subject, subject));
  if (!event) throw new Error(`outbox row with undeclared subject ${subject}`);
  return event;
}

interface OutboxRow {
  id: string;
  subject: string;
  msg_id: string;
  payload: unknown;
}

@Injectable()
export class OutboxRelay extends PollingOutboxRelay<OutboxRow> {
  private readonly t: (name: string) => string;

  constructor(@Inject(RUNTIME) runtime: ServiceRuntime) {
    super(runtime, { label: 'outbox relay', batchSize: 100, idlePollMs: 500, firstDelayMs: 0 });
    this.t = tableNamer(runtime.orm);
  }

  protected async claim(em: Em, limit: number): Promise<OutboxRow[]> {
    const conn = em.getConnection();
    const ctx = em.getTransactionContext();
    const [lock] = await conn.execute<{ locked: boolean }[]>('select pg_try_advisory_xact_lock(?, hashtext(current_schema())) as locked', [LOCK_KEY], 'all', ctx);
    if (!lock?.locked) return [];
    return conn.execute<OutboxRow[]>(`select id, subject, msg_id, payload from ${this.t('outbox')} where published_at is null order by id limit ${limit}`, [], 'all', ctx);
  }

  protected publish(row: OutboxRow): Promise<unknown> {
    return this.runtime.bus.publish(eventFor(row.subject), row.subject, row.payload as never, { msgId: row.msg_id });
  }

  protected async markPublished(em: Em, rows: OutboxRow[]): Promise<void> {
    await em.getConnection().execute(`update ${this.t('outbox')} set published_at = now() where id in (${rows.map(() => '?').join(',')})`, rows.map((r) => r.id), 'run', em.getTransactionContext());
  }
}
