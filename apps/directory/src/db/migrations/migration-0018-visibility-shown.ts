/**
 * The published visibility set also lists, under a status filter, the stored vehicles the rules
 * show (`shown`, decision 0029): a vehicle in neither list has not been stored here, its status is
 * unknown, and every context must hide it as the directory's own reads do. Existing sets of
 * connections whose rules filter by status get it now — the stored vehicles their `hidden` does not
 * list, which is exactly what the rules showed when the set was computed — and a new sequence, so
 * the relay republishes them and no context waits for the next vehicles batch.
 */
import { SchemaMigration } from '@switchyard/persistence';

export class Migration0018VisibilityShown extends SchemaMigration {
  override up(): void {
    const [v, vehicle] = [this.table('vehicle_visibility'), this.table('vehicle')];
    this.addSql(`
alter table ${v} add column shown jsonb null;
update ${v} s set sequence = s.sequence + 1, computed_at = now(), shown = (
    select coalesce(jsonb_agg(x.id order by x.id), '[]'::jsonb) from ${vehicle} x
     where x.connection_id = s.connection_id and not exists (select 1 from jsonb_array_elements(s.hidden) h where h->>'vehicleId' = x.id))
  where jsonb_array_length(coalesce(s.rules->'includeStatuses', '[]'::jsonb)) > 0;`);
  }
}
