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
import type { Em } from '@switchyard/persistence';
import { PollingOutboxRelay, RUNTIME, type ServiceRuntime } from '@switchyard/service-kit';
import { OutboxRepository, type OutboxRow } from '../db/repositories/outbox.repository.js';

/** Every event the gateway writes to its outbox. */
const OUTBOX_EVENTS: readonly EventDefinition[] = [EVENTS.connectionConfigChanged, EVENTS.applicationGrantChanged];

function eventFor(subject: string): EventDefinition {
  const event = OUTBOX_EVENTS.find((e) => subjectMatches(e.subject, subject));
  if (!event) throw new Error(`outbox row with undeclared subject ${subject}`);
  return event;
}

@Injectable()
export class OutboxRelay extends PollingOutboxRelay<OutboxRow> {
  private readonly repository = new OutboxRepository();

  constructor(@Inject(RUNTIME) runtime: ServiceRuntime) {
    super(runtime, { label: 'outbox relay', batchSize: 100, idlePollMs: 500, firstDelayMs: 0 });
  }

  protected claim(em: Em, limit: number): Promise<OutboxRow[]> {
    return this.repository.claim(em, limit);
  }

  protected publish(row: OutboxRow): Promise<unknown> {
    return this.runtime.bus.publish(eventFor(row.subject), row.subject, row.payload as never, { msgId: row.msg_id });
  }

  protected markPublished(em: Em, rows: OutboxRow[]): Promise<void> {
    return this.repository.markPublished(em, rows.map((r) => r.id));
  }

  protected override prunePublished(em: Em, before: Date): Promise<number> {
    return this.repository.deletePublishedBefore(em, before);
  }
}
