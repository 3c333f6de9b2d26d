/**
 * The SQL of the stored driver reads: keyset pages on `driver_connection_idx` (connection_id, id),
 * ascending, never offset, inside the walk's horizon snapshot (migration 0003 `created_xid`, the
 * same rule as trips), and one driver by id. Rows carry the stored Field envelopes verbatim
 * (`fields`, `group_membership`) so the mapper can report per-field availability, and timestamps
 * as RFC 3339 text. A page holds only the drivers the walk's pass listed (driver_roster, migration
 * 0014): the roster row must be visible in the horizon too, so a late page of the pass listing a
 * driver after the walk began does not add it mid-walk.
 */
import type { Field } from '@switchyard/domain';
import { isoSql, query, tableNamer, type Em } from '@switchyard/persistence';
import { ROSTER_DATASETS, RosterPassRepository } from './roster-pass.repository.js';
import { idPageTail, type IdPageQuery } from './read-horizon.js';
import type { DriverReadRow } from './trips-read.repository.js';

/** A stored driver with what the Driver resource needs beyond a trip's driver. */
export interface DriverDirectoryRow extends DriverReadRow {
  group_membership: Field<readonly string[]>;
  /** Minted group_ ids of the reported memberships; null when membership is unknown. */
  group_ids: string[] | null;
  /** Provider fetch time of the stored version (when its memberships were captured). */
  fetched_at: string;
}

export class DriversReadRepository {
  private readonly passes = new RosterPassRepository(ROSTER_DATASETS.drivers);

  private select(em: Em): string {
    return `select d.id, d.source_id, d.provider, d.status, d.fields, d.group_membership, d.group_ids,
              ${isoSql('d.fetched_at')} as fetched_at, ${isoSql('d.first_seen_at')} as added_at, ${isoSql('d.modified_at')} as modified_at
         from ${tableNamer(em)('driver')} d`;
  }

  /** A page of the drivers completed pass `seq` listed, as the walk's horizon sees the roster. */
  async page(em: Em, q: IdPageQuery & { seq: number }): Promise<DriverDirectoryRow[]> {
    const tail = idPageTail('d', { ...q, filter: { sql: this.passes.listedIn('d', tableNamer(em)), params: [q.seq, q.seq, q.horizon] } });
    return query<DriverDirectoryRow>(em, `${this.select(em)} ${tail.sql}`, tail.params);
  }

  async byId(em: Em, connectionId: string, driverId: string): Promise<DriverDirectoryRow | undefined> {
    const [row] = await query<DriverDirectoryRow>(em, `${this.select(em)} where d.id = ? and d.connection_id = ?::uuid`, [driverId, connectionId]);
    return row;
  }
}
