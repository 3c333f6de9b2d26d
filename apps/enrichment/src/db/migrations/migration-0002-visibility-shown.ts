/**
 * The vehicle-visibility projection keeps the set's `shown` list (decision 0029): under a status
 * filter, the stored vehicles the directory's rules show — a vehicle in neither list is one the
 * directory never stored, with no status, hidden like a status-hidden one. Null: no status filter,
 * or a set from before the field. Written out in this context, as every applied migration is.
 */
import { SchemaMigration } from '@switchyard/persistence';

export class Migration0002VisibilityShown extends SchemaMigration {
  override up(): void {
    this.addSql(`alter table ${this.table('vehicle_visibility')} add column shown jsonb null;`);
  }
}
