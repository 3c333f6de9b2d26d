/**
 * Collector failure bookkeeping on units: `error_attempts` counts the leases of the current
 * attempt that ended in a retryable provider failure (throttled, unavailable), so a unit is
 * re-leased a bounded number of times before its sync fails with the last code (`last_error_code`,
 * added by 0002). Invariant: retry resets both (sync.repository resetForRetry sets the code to
 * null; error_attempts is reset by the same statement since this migration).
 */
import { SchemaMigration } from '@switchyard/persistence';

export class Migration0004UnitErrors extends SchemaMigration {
  override up(): void {
    this.addSql(`alter table ${this.table('sync_unit')} add column error_attempts integer not null default 0;`);
  }
}
