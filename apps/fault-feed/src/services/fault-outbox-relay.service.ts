/**
 * Publishes committed fault transitions (the outbox: fault_transition rows with published_at NULL)
 * to `fleet.faults.<connectionId>.<opened|cleared>`, msgId = transition id, with the CloudEvents 1.0
 * attributes as `ce-*` headers (libs/messaging fault-transition-events.ts).
 * One relay publishes at a time across processes (transaction-scoped advisory lock), rows go out
 * in (connection, sequence) order and are marked in the transaction that read them. A crash after
 * publishing but before the mark republishes the same msgIds: the FAULTS duplicate window drops
 * them and consumers keep the highest sequence they applied. The consumer calls `flush()` after
 * each commit (so transitions precede the batch's receipt); a 1 s poll catches anything a failed
 * flush left behind.
 */
import { Inject, Injectable } from '@nestjs/common';
import { EVENTS, faultTransitionCloudEventHeaders, type FaultTransitionV1, subjectFor } from '@switchyard/messaging';
import type { Em } from '@switchyard/persistence';
import { PollingOutboxRelay, RUNTIME, type ServiceRuntime } from '@switchyard/service-kit';
import { FaultRepository, type UnpublishedTransitionRow } from '../db/repositories/fault.repository.js';

@Injectable()
export class FaultOutboxRelay extends PollingOutboxRelay<UnpublishedTransitionRow> {
  private readonly repository = new FaultRepository();

  constructor(@Inject(RUNTIME) runtime: ServiceRuntime) {
    super(runtime, { label: 'fault outbox relay', batchSize: 200, idlePollMs: 1_000, firstDelayMs: 1_000, outbox: 'fault_transition' });
  }

  protected async claim(em: Em, limit: number): Promise<UnpublishedTransitionRow[]> {
    await this.repository.lockRelay(em);
    return this.repository.unpublished(em, limit);
  }

  protected publish(row: UnpublishedTransitionRow): Promise<unknown> {
    const payload = row.payload as FaultTransitionV1;
    return this.runtime.bus.publish(EVENTS.faultTransition, subjectFor(EVENTS.faultTransition.subject, row.connection_id, row.kind), payload, { msgId: row.id, headers: faultTransitionCloudEventHeaders(payload) });
  }

  protected countPending(em: Em): Promise<number> {
    return this.repository.countUnpublished(em);
  }

  protected markPublished(em: Em, rows: UnpublishedTransitionRow[]): Promise<void> {
    return this.repository.markPublished(em, rows.map((r) => r.id));
  }
}
