/**
 * The request rate buckets are reconciled across gateway processes (decision 0032): each process
 * reads, every interval, the buckets changed since its last reconciliation (`refilled_at` is set by
 * every change). Additive: one index.
 */
import { SchemaMigration } from '@switchyard/persistence';

export class Migration0007RequestRateChanges extends SchemaMigration {
  override up(): void {
    this.addSql(`create index request_rate_bucket_changed on ${this.schema}.request_rate_bucket (refilled_at);`);
  }
}
