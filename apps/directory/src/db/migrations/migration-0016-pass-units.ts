/**
 * A roster pass spans every unit of its sync's purpose (decision 0011, "A pass is the sync's
 * units"): the vehicles purpose plans one unit per approved vehicle, so a pass completes only when
 * each of its units has delivered its final page. `driver_pass_unit` and `vehicle_pass_unit` hold
 * the units of an unfinished pass whose final page committed (one row per unit, so a final page
 * sent again under a new lease counts once), with the newest fetch of their final pages; the rows
 * are deleted when the pass completes, or by a later completion a day after they were written.
 * Additive: two new tables, written out (no shared generator can change an applied migration).
 */
import { SchemaMigration } from '@switchyard/persistence';

export class Migration0016PassUnits extends SchemaMigration {
  override up(): void {
    const s = this.schema;
    for (const prefix of ['driver', 'vehicle']) {
      this.addSql(`
create table ${s}.${prefix}_pass_unit (
  connection_id uuid not null,
  pass_key text not null,
  unit_id text not null,
  final_fetched_at timestamptz not null,
  primary key (connection_id, pass_key, unit_id)
);
`);
    }
  }
}
