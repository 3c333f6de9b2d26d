/**
 * The SQL of the vehicle status the directory derives from the vehicle roster (decision 0011, "A
 * status derived from the roster") for vehicles whose provider reports none — stored status cell
 * `unsupported` (Samsara). One expression decides it, from the connection's `vehicle_roster` rows
 * (migration 0015): an open listing (the last complete pass carried the vehicle) → `active`; only
 * closed listings (a later complete pass no longer did) → `inactive`; no listing (no complete pass
 * carried it yet) → NULL, unknown. The same expression serves the rows a batch writes and the rows a
 * roster change moves, so the two can never disagree. Runs in the batch's transaction, after the
 * connection's vehicles pass lock (roster-pass.repository.ts): every writer of the roster and of
 * these rows is serialised by it.
 */
import { query, tableNamer, type Em } from '@switchyard/persistence';
import type { RecordStatus } from '@switchyard/domain';
import { arrayLiteral } from './trips-read.repository.js';

/** The roster-derived status of `alias` (a row with `connection_id` and `id` columns). */
const rosterStatus = (t: (table: string) => string, alias: string) =>
  `(select case when bool_or(r.to_seq is null) then 'active' when count(*) > 0 then 'inactive' end
      from ${t('vehicle_roster')} r where r.connection_id = ${alias}.connection_id and r.vehicle_id = ${alias}.id)`;

/** The stored status cell says the provider supplies no status: the rows whose status is derived. */
const derivedRow = (alias: string) => `${alias}.metadata->'status'->>'status' = 'unsupported'`;

export class VehicleRosterStatusRepository {
  /** The derived status of each of `vehicleIds` as the roster stands now; a vehicle no complete pass listed is absent (unknown). */
  async statuses(em: Em, connectionId: string, vehicleIds: readonly string[]): Promise<Map<string, RecordStatus>> {
    if (vehicleIds.length === 0) return new Map();
    const t = tableNamer(em);
    const rows = await query<{ id: string; status: RecordStatus | null }>(
      em,
      `select x.id, ${rosterStatus(t, 'x')} as status from (select ?::uuid as connection_id, unnest(?::text[]) as id) x`,
      [connectionId, arrayLiteral(vehicleIds)],
    );
    return new Map(rows.flatMap((r) => (r.status === null ? [] : [[r.id, r.status] as const])));
  }

  /**
   * Moves every derived status of the connection to what the roster now says; a row whose status
   * changes is modified (at `modifiedAt`, the fetch time of the batch that changed the roster,
   * never earlier than the row's own) and takes a new publication number. Returns how many moved.
   */
  async follow(em: Em, connectionId: string, modifiedAt: string): Promise<number> {
    const t = tableNamer(em);
    const moved = await query<{ id: string }>(
      em,
      `update ${t('vehicle')} v set status = d.status, modified_at = greatest(v.modified_at, ?::timestamptz), publication = nextval('${t('publication_seq')}')
         from (select w.id, ${rosterStatus(t, 'w')} as status from ${t('vehicle')} w where w.connection_id = ?::uuid and ${derivedRow('w')}) d
        where v.id = d.id and v.status is distinct from d.status
       returning v.id`,
      [modifiedAt, connectionId],
    );
    return moved.length;
  }
}
