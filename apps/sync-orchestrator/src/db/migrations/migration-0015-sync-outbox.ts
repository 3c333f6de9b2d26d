/**
 * The orchestrator's transactional outbox (issue 29): the outcome of a public sync
 * (`events.sync.outcome.<connectionId>`) is written in the transaction that completes or fails it,
 * and published by SyncOutboxRelay after the commit (service-kit TableOutboxRelay; msg_id = the
 * outcome's event id, unique, so recording it twice adds one row). Same shape as the gateway's
 * outbox (its migration 0002). Additive: one new table.
 */
import { SchemaMigration } from '@switchyard/persistence';
import { outboxTableSql } from '@switchyard/service-kit';

export class Migration0015SyncOutbox extends SchemaMigration {
  override up(): void {
    // Shared with the other context's outbox (service-kit outbox-table.repository.ts); the SQL is what this migration always ran.
    this.addSql(outboxTableSql(this.schema));
  }
}
