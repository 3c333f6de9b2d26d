/**
 * Transactional outbox: a configuration change and the event announcing it are written in one
 * transaction; the relay (services/outbox-relay.service.ts) publishes rows in id order with a
 * stable msgId and marks them published. A crash between publish and mark republishes the same
 * msgId, which JetStream's duplicate window (and the consumers' revision check) absorbs.
 */
import { SchemaMigration } from '@switchyard/persistence';
import { outboxTableSql } from '@switchyard/service-kit';

export class Migration0002Outbox extends SchemaMigration {
  override up(): void {
    // Shared with the other context's outbox (service-kit outbox-table.repository.ts); the SQL is what this migration always ran.
    this.addSql(outboxTableSql(this.schema));
  }
}
