/**
 * Publishes changed vehicle-visibility sets (the outbox: `vehicle_visibility` rows with
 * published_sequence < sequence) to `events.vehicle.visibility.<connectionId>`, msgId
 * `visibility:<connectionId>:<sequence>`, and marks them in the transaction that claimed them.
 * A crash between publish and mark republishes the same msgId (the EVENTS duplicate window drops
 * it) or, after a newer change, the newer set — consumers keep the highest sequence. The ingest
 * and config consumers call `flush()` after their commit; a 1 s poll catches anything a failed
 * flush left behind.
 * Retention (decision 0025): none, and none needed — the outbox is one row per connection, updated
 * in place, so published rows are state, not a log (no `prunePublished`; deleting a row would
 * restart its sequence below what consumers hold).
 */
import { Inject, Injectable } from '@nestjs/common';
import { EVENTS, subjectFor, vehicleVisibilityMsgId } from '@switchyard/messaging';
import type { Em } from '@switchyard/persistence';
import { PollingOutboxRelay, RUNTIME, type ServiceRuntime } from '@switchyard/service-kit';
import { VehicleVisibilityRepository, type UnpublishedVisibilityRow } from '../db/repositories/vehicle-visibility.repository.js';

@Injectable()
export class VehicleVisibilityRelay extends PollingOutboxRelay<UnpublishedVisibilityRow> {
  private readonly repository = new VehicleVisibilityRepository();

  constructor(@Inject(RUNTIME) runtime: ServiceRuntime) {
    super(runtime, { label: 'vehicle visibility relay', batchSize: 100, idlePollMs: 1_000, firstDelayMs: 1_000, outbox: 'vehicle_visibility' });
  }

  protected claim(em: Em, limit: number): Promise<UnpublishedVisibilityRow[]> {
    return this.repository.unpublished(em, limit);
  }

  protected publish(row: UnpublishedVisibilityRow): Promise<unknown> {
    const event = { connectionId: row.connection_id, sequence: row.sequence, configRevision: row.config_revision, computedAt: row.computed_at, hidden: row.hidden, ...(row.shown ? { shown: row.shown } : {}) };
    return this.runtime.bus.publish(EVENTS.vehicleVisibility, subjectFor(EVENTS.vehicleVisibility.subject, row.connection_id), event, { msgId: vehicleVisibilityMsgId(event) });
  }

  protected countPending(em: Em): Promise<number> {
    return this.repository.countUnpublished(em);
  }

  protected markPublished(em: Em, rows: UnpublishedVisibilityRow[]): Promise<void> {
    return this.repository.markPublished(em, rows);
  }
}
