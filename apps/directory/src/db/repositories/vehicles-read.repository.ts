/**
 * The SQL of the stored vehicle reads. Keyset pages on `vehicle_connection_idx` (connection_id, id),
 * ascending, never offset, kept to the rows visible in the walk's horizon snapshot (migration 0003
 * `created_xid`; the horizon itself is taken by read-horizon.ts). Timestamps come back as RFC 3339 text (isoSql). Expanded groups are
 * read by groups-read.repository.ts, as every expansion of a group is. The roster position of a vehicle comes from the ingest ledger.
 */
import type { Em } from '@switchyard/persistence';
import { isoSql, query, tableNamer } from '@switchyard/service-kit';
import { idPageTail, type IdPageQuery } from './read-horizon.js';
import type { VehicleReadRow } from './trips-read.repository.js';

/** A stored vehicle with the roster time the metadata read needs. */
export interface VehicleRow extends VehicleReadRow {
  /** Provider fetch time of the newest batch that carried the vehicle. */
  last_seen_at: string;
}

export class VehiclesReadRepository {
  private select(em: Em): string {
    return `select v.id, v.source_id, v.provider, v.status, v.name, v.vin, v.metadata,
              ${isoSql('v.first_seen_at')} as added_at, ${isoSql('v.modified_at')} as modified_at,
              ${isoSql('v.fetched_at')} as fetched_at, ${isoSql('v.last_seen_at')} as last_seen_at
         from ${tableNamer(em)('vehicle')} v`;
  }

  async page(em: Em, q: IdPageQuery): Promise<VehicleRow[]> {
    const tail = idPageTail('v', q);
    return query<VehicleRow>(em, `${this.select(em)} ${tail.sql}`, tail.params);
  }

  async byId(em: Em, connectionId: string, vehicleId: string): Promise<VehicleRow | undefined> {
    const [row] = await query<VehicleRow>(em, `${this.select(em)} where v.id = ? and v.connection_id = ?::uuid`, [vehicleId, connectionId]);
    return row;
  }

  /**
   * Roster position of one vehicle, both in batch fetch times (the ingest ledger's clock, so they
   * compare): `start`, the fetch time of the first committed page of the last complete vehicles
   * pass (the unit whose final page committed last), null when no pass completed; `seen`, the fetch
   * time of the batch that carried the vehicle's newest version, null when the vehicle is not
   * stored or that ledger row was pruned (after the INGEST stream's 7 days: long before any
   * current pass).
   */
  async roster(em: Em, connectionId: string, vehicleId: string): Promise<{ start: string | null; seen: string | null }> {
    const t = tableNamer(em);
    const [row] = await query<{ start: string | null; seen: string | null }>(
      em,
      `with last as (
         select sync_id, unit_id from ${t('ingest_batch')}
          where connection_id = ?::uuid and kind = 'vehicles' and status = 'committed' and (receipt->>'final')::boolean
          order by fetched_at desc limit 1)
       select (select ${isoSql('min(b.fetched_at)')}
                 from ${t('ingest_batch')} b join last on b.unit_id = last.unit_id and b.sync_id is not distinct from last.sync_id
                where b.connection_id = ?::uuid and b.kind = 'vehicles' and b.status = 'committed') as start,
              (select ${isoSql('b.fetched_at')} from ${t('vehicle')} v join ${t('ingest_batch')} b on b.batch_id = v.batch_id
                where v.id = ? and v.connection_id = ?::uuid) as seen`,
      [connectionId, connectionId, vehicleId, connectionId],
    );
    return { start: row?.start ?? null, seen: row?.seen ?? null };
  }
}
