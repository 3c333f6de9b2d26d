/**
 * The durable count of late writes fencing refused (issue 25): `sync_unit.fenced_writes` grows by
 * one each time a heartbeat or provider-cursor save under a superseded fencing token is refused
 * while the write would otherwise have passed (the unit admitted under a newer token; for a
 * heartbeat, its lease live) — durable evidence that a resumed or stalled collector was fenced
 * off, readable in the table rather than only from a log line. A write that finds its unit
 * receipted under its own token (the receipt beat the cursor save after the final batch) is not
 * counted: no lease was lost. Never reset, by retry or otherwise.
 * Additive: one defaulted column (no table rewrite on PostgreSQL ≥ 11).
 */
import { SchemaMigration } from '@switchyard/persistence';

export class Migration0014FencedWrites extends SchemaMigration {
  override up(): void {
    this.addSql(`alter table ${this.table('sync_unit')} add column fenced_writes integer not null default 0;`);
  }
}
