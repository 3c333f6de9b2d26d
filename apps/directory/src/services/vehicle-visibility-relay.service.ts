/**
 * Publishes changed vehicle-visibility sets (the outbox: `vehicle_visibility` rows with
 * published_sequence < sequence) to `events.vehicle.visibility.<connectionId>`, msgId
 * `visibility:<connectionId>:<sequence>`, and marks them in the transaction that claimed them.
 * A crash between publish and mark republishes the same msgId (the EVENTS duplicate window drops
 * it) or, after a newer change, the newer set — consumers keep the highest sequence. The ingest
 * and config consumers call `flush()` after their commit; a 1 s poll catches anything a failed
 * flush left behind.
 */
import { Inject, Injectable } from '@nestjs/common';
import { subjectFor, VEHICLE_VISIBILITY_EVENT, vehicleVisibilityMsgId } from '@switchyard/messaging';
import { PollingOutboxRelay, RUNTIME, type ServiceRuntime } from '@switchyard/service-kit';
import { VehicleVisibilityRepository } from '../db/repositories/vehicle-visibility.repository.js';

@Injectable()
export class VehicleVisibilityRelay extends PollingOutboxRelay {
  private readonly repository = new VehicleVisibilityRepository();

  constructor(@Inject(RUNTIME) runtime: ServiceRuntime) {
    super(runtime, { label: 'vehicle visibility relay', batchSize: 100, idlePollMs: 1_000, firstDelayMs: 1_000 });
  }

  protected publishBatch(): Promise<number> {
    return this.runtime.orm.em.fork().transactional(async (em) => {
      const rows = await this.repository.unpublished(em, this.batchSize);
      for (const row of rows) {
        const event = { connectionId: row.connection_id, sequence: row.sequence, configRevision: row.config_revision, computedAt: row.computed_at, hidden: row.hidden };
        await this.runtime.bus.publish(VEHICLE_VISIBILITY_EVENT, subjectFor(VEHICLE_VISIBILITY_EVENT.subject, row.connection_id), event, { msgId: vehicleVisibilityMsgId(event) });
      }
      await this.repository.markPublished(em, rows);
      return rows.length;
    });
  }
}
