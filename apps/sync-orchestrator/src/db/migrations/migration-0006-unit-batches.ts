/**
 * `sync_unit_batch`: every ingest batch a unit's collector published under one fencing token, and
 * whether the owning context's receipt of it has committed. A unit's data can span several batches
 * (pages × parts) that the context commits in parallel, so the receipt of the `final` batch alone
 * does not prove the unit's data is durable.
 *
 * Invariants kept by the shape:
 * - a row is written (fenced by the unit's current token) BEFORE its batch is published, so every
 *   batch whose receipt can arrive under the current token is known; a row whose batch was never
 *   published (crash between record and publish) holds the unit back only until its lease runs
 *   out: the re-lease bumps the token and starts a fresh set;
 * - the unit is receipted only when a `final` row exists for its current token and every row of
 *   that token has `committed_at`;
 * - additive: no existing table changes; rows of older tokens are pruned when a newer token records.
 */
import { SchemaMigration } from '@switchyard/persistence';

export class Migration0006UnitBatches extends SchemaMigration {
  override up(): void {
    const s = this.schema;
    this.addSql(`
create table ${s}.sync_unit_batch (
  unit_id bigint not null,
  fencing_token bigint not null,
  batch_id text not null,
  final boolean not null,
  recorded_at timestamptz not null default now(),
  committed_at timestamptz null,
  primary key (unit_id, fencing_token, batch_id)
);
`);
  }
}
