/**
 * The SQL of the stored vehicle reads. Keyset pages on `vehicle_connection_idx` (connection_id, id),
 * ascending, never offset, kept to the rows visible in the walk's horizon snapshot (migration 0003
 * `created_xid`; the horizon itself is taken by read-horizon.ts). Timestamps come back as RFC 3339 text (isoSql). Expanded groups are
 * read by groups-read.repository.ts, as every expansion of a group is. The roster position of a vehicle comes from its
 * roster passes (roster-pass.repository.ts, migration 0015).
 */
import { isoSql, query, tableNamer, type Em } from '@switchyard/persistence';
import { idPageTail, type IdPageQuery } from './read-horizon.js';
import type { VehicleReadRow } from './trips-read.repository.js';

/** A stored vehicle with its newest fetch time. */
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
}
