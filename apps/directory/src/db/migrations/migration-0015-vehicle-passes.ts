/**
 * The vehicle roster as the last COMPLETE vehicles pass (decisions 0011 and 0014): the metadata
 * read's `not_in_current_roster` and `rosterSeenAt` come from explicit pass rosters, as the driver
 * directory's do, instead of comparing a vehicle's newest fetch with the last pass's first page —
 * which counted a vehicle first seen by an unfinished newer pass as in the roster.
 * `vehicle_sighting`, `vehicle_pass`, `vehicle_roster`: the driver tables' shape (roster-pass-tables.ts),
 * keyed by the minted vehicle id. Nothing is backfilled: a connection's vehicles enter the roster
 * with its next complete vehicles pass (until then its stored vehicles answer `pending`).
 */
import { SchemaMigration } from '@switchyard/persistence';
import { rosterPassTablesSql } from './roster-pass-tables.js';

export class Migration0015VehiclePasses extends SchemaMigration {
  override up(): void {
    this.addSql(rosterPassTablesSql(this.schema, { prefix: 'vehicle', member: 'vehicle_id' }));
  }
}
