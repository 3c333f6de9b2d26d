/**
 * The relay of a context's `outbox` table (db/outbox-table.repository.ts): each row goes out under
 * the declared event whose subject pattern matches its subject (so the bus validates the payload
 * against that event's schema), with its stable msgId, and is marked published in the transaction
 * that claimed it. A crash after publishing but before commit republishes the same msgIds:
 * JetStream's duplicate window drops them and consumers are idempotent on the event. A subclass
 * names its events, lock and pace (the gateway's OutboxRelay, the sync-orchestrator's
 * SyncOutboxRelay); writers enqueue with `OutboxTableRepository.enqueue` on their own transaction.
 */
import { subjectMatches, type EventDefinition } from '@switchyard/messaging';
import type { Em } from '@switchyard/persistence';
import type { ServiceRuntime } from '../runtime.js';
import { OutboxTableRepository, type OutboxRow } from './db/outbox-table.repository.js';
import { PollingOutboxRelay } from './polling-outbox-relay.js';

export interface TableOutboxOptions {
  label: string;
  /** Every event the context writes to its outbox. */
  events: readonly EventDefinition[];
  lockKey: number;
  batchSize?: number;
  idlePollMs?: number;
}

export abstract class TableOutboxRelay extends PollingOutboxRelay<OutboxRow> {
  private readonly repository: OutboxTableRepository;
  private readonly events: readonly EventDefinition[];

  protected constructor(runtime: ServiceRuntime, options: TableOutboxOptions) {
    super(runtime, { label: options.label, batchSize: options.batchSize ?? 100, idlePollMs: options.idlePollMs ?? 500, firstDelayMs: 0, outbox: 'outbox' });
    this.repository = new OutboxTableRepository(options.lockKey);
    this.events = options.events;
  }

  private eventFor(subject: string): EventDefinition {
    const event = this.events.find((e) => subjectMatches(e.subject, subject));
    if (!event) throw new Error(`outbox row with undeclared subject ${subject}`);
    return event;
  }

  protected claim(em: Em, limit: number): Promise<OutboxRow[]> {
    return this.repository.claim(em, limit);
  }

  protected publish(row: OutboxRow): Promise<unknown> {
    return this.runtime.bus.publish(this.eventFor(row.subject), row.subject, row.payload as never, { msgId: row.msg_id });
  }

  protected countPending(em: Em): Promise<number> {
    return this.repository.countPending(em);
  }

  protected markPublished(em: Em, rows: OutboxRow[]): Promise<void> {
    return this.repository.markPublished(em, rows.map((r) => r.id));
  }

  protected override prunePublished(em: Em, before: Date): Promise<number> {
    return this.repository.deletePublishedBefore(em, before);
  }
}
