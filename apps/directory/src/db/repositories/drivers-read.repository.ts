/**
 * The SQL of the stored driver reads: keyset pages on `driver_connection_idx` (connection_id, id),
 * ascending, never offset, inside the walk's horizon snapshot (migration 0003 `created_xid`, the
 * same rule as trips), and one driver by id, each rendered as the public Driver by PostgreSQL
 * (driver-sql.ts) and paged by the read frame (`readFrame`, decision 0028). A page holds only the drivers the walk's pass listed (driver_roster, migration
 * 0014): the roster row must be visible in the horizon too, so a late page of the pass listing a
 * driver after the walk began does not add it mid-walk.
 */
import { isoSql, readQuery, tableNamer, type Em } from '@switchyard/persistence';
import { readFrame, type FramedPage } from '@switchyard/service-kit';
import { driverJoinsSql, driverShownSql, driverSql, type MembershipContext } from './driver-sql.js';
import { ROSTER_DATASETS, RosterPassRepository } from './roster-pass.repository.js';
import { idPageTail, type IdPageQuery } from './read-horizon.js';

/** How a read renders its Drivers: `expand=groups`, and the datasets' part of groupMembership. */
export interface DriverRendering {
  expandGroups: boolean;
  membership: MembershipContext;
}

export class DriversReadRepository {
  private readonly passes = new RosterPassRepository(ROSTER_DATASETS.drivers);

  private select(em: Em, r: DriverRendering): { sql: string; params: unknown[] } {
    const t = tableNamer(em);
    return { sql: `select ${driverSql('d')}::json as body, to_json(d.id) as position from ${t('driver')} d ${driverJoinsSql(t, 'd')}`, params: [r.expandGroups, JSON.stringify(r.membership)] };
  }

  /** A frame page of the Drivers completed pass `seq` listed, as the walk's horizon sees the roster. */
  page(em: Em, q: Omit<IdPageQuery, 'limit'> & { seq: number }, r: DriverRendering, page: { limit: number; maxBytes: number }): Promise<FramedPage<string>> {
    const { sql, params } = this.select(em, r);
    const tail = idPageTail('d', { ...q, filter: { sql: `${driverShownSql('d')} and ${this.passes.listedIn('d', tableNamer(em))}`, params: [q.seq, q.seq, q.horizon] } });
    return readFrame(em, { sql: `${sql} ${tail.sql}`, params: [...params, ...tail.params] }, page);
  }

  /** The fetch time of the stored driver `driverId` of the connection; undefined when none is stored. */
  async stored(em: Em, connectionId: string, driverId: string): Promise<{ fetched_at: string } | undefined> {
    const [row] = await readQuery<{ fetched_at: string }>(em, `select ${isoSql('d.fetched_at')} as fetched_at from ${tableNamer(em)('driver')} d where d.id = ? and d.connection_id = ?::uuid`, [driverId, connectionId]);
    return row;
  }

  /** The Driver `driverId` of the connection as JSON text; undefined when it cannot be one. */
  async byId(em: Em, connectionId: string, driverId: string, r: DriverRendering): Promise<string | undefined> {
    const { sql, params } = this.select(em, r);
    const [row] = await readQuery<{ body: string }>(em, `select body::text as body from (${sql} where d.id = ? and d.connection_id = ?::uuid and ${driverShownSql('d')}) q`, [...params, driverId, connectionId]);
    return row?.body;
  }
}
