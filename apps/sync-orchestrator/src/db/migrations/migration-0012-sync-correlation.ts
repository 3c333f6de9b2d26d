/**
 * A sync remembers the correlation id and W3C trace parent of the request that created it, so its
 * units' collection — run later by whichever collector leases them — logs and publishes under the
 * same id (the trail from `POST /v1/syncs` through the collector, the owning context's commit and
 * the receipt). Null for runs created outside a request and for syncs created before this
 * migration: the collector then correlates by `sync:<id>`.
 * Additive: two nullable columns.
 */
import { SchemaMigration } from '@switchyard/persistence';

export class Migration0012SyncCorrelation extends SchemaMigration {
  override up(): void {
    this.addSql(`alter table ${this.table('sync')} add column correlation_id text null, add column traceparent text null;`);
  }
}
