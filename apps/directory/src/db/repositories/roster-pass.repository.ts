/**
 * The SQL of a dataset's roster passes (decision 0014): sightings of an unfinished pass, the units
 * of the pass that delivered their final page, the completion that turns them into the roster, and
 * the reads of the pass a walk serves. One class for every rostered dataset, parameterised by
 * `RosterDataset` (drivers: migration 0014, vehicles: migration 0015, the pass units of both:
 * migration 0016). Every writer holds the
 * connection's lock of that dataset (`lock`) for the rest of its transaction, so completions number
 * passes without gaps or races and a late page of a pass cannot slip between its completion's reads
 * and writes. Timestamps come back as RFC 3339 text.
 */
import { isoSql, query, tableNamer, type Em } from '@switchyard/persistence';
import { inHorizon } from './read-horizon.js';
import { arrayLiteral } from './trips-read.repository.js';

/** A rostered dataset: its ingest kind, the prefix of its three tables and their member column. */
export interface RosterDataset {
  kind: 'drivers' | 'vehicles';
  /** `<prefix>_sighting`, `<prefix>_pass`, `<prefix>_roster`. */
  prefix: 'driver' | 'vehicle';
  /** The member id column of the sighting and roster tables (the dataset's row id). */
  member: 'driver_id' | 'vehicle_id';
}

export const ROSTER_DATASETS = {
  drivers: { kind: 'drivers', prefix: 'driver', member: 'driver_id' },
  vehicles: { kind: 'vehicles', prefix: 'vehicle', member: 'vehicle_id' },
} as const satisfies Record<RosterDataset['kind'], RosterDataset>;

/** A completed pass as the reads report it. */
export interface PassRow {
  seq: number;
  /** Provider fetch time of the pass's newest page. */
  fetched_at: string;
  /** Provider fetch time of the pass's final page. */
  captured_at: string;
  /** When the directory committed the final page (the pass became the directory). */
  published_at: string;
}

/** One listing of a member (driver or vehicle): the completed passes [from_seq, to_seq) that carried it. */
export interface RosterInterval {
  from_seq: number;
  to_seq: number | null;
}

/** Passes older than this are pruned, keeping the newest of them: a read cursor lives 24 h (gateway READ_CURSOR_TTL_MS). */
const PASS_RETENTION = `interval '25 hours'`;
/** Sightings of a pass that never completed are dropped by a completion this long after them. */
const ABANDONED_SIGHTINGS = `interval '1 day'`;

export class RosterPassRepository {
  private readonly sightingTable: string;
  private readonly passTable: string;
  private readonly rosterTable: string;
  private readonly passUnitTable: string;
  private readonly member: string;

  constructor(private readonly dataset: RosterDataset) {
    this.sightingTable = `${dataset.prefix}_sighting`;
    this.passTable = `${dataset.prefix}_pass`;
    this.rosterTable = `${dataset.prefix}_roster`;
    this.passUnitTable = `${dataset.prefix}_pass_unit`;
    this.member = dataset.member;
  }

  /** The connection's lock of this dataset, held until the transaction ends. */
  async lock(em: Em, connectionId: string): Promise<void> {
    await query(em, `select pg_advisory_xact_lock(hashtextextended(?::text, 0))`, [`directory.${this.passTable}:${connectionId}`]);
  }

  /**
   * The newest completed pass of the connection: the one visible in `horizon` when given (the pass
   * a walk started on stays its pass), else the newest committed.
   */
  async current(em: Em, connectionId: string, horizon?: string): Promise<PassRow | undefined> {
    const [row] = await query<Omit<PassRow, 'seq'> & { seq: string }>(
      em,
      `select p.seq::text as seq, ${isoSql('p.fetched_at')} as fetched_at, ${isoSql('p.captured_at')} as captured_at, ${isoSql('p.published_at')} as published_at
         from ${tableNamer(em)(this.passTable)} p
        where p.connection_id = ?::uuid ${horizon === undefined ? '' : `and ${inHorizon('p')}`}
        order by p.seq desc limit 1`,
      horizon === undefined ? [connectionId] : [connectionId, horizon],
    );
    return row && { ...row, seq: Number(row.seq) };
  }

  /** The sequence number of the completed pass `passKey`, if it completed. */
  async completedSeq(em: Em, connectionId: string, passKey: string): Promise<number | undefined> {
    const [row] = await query<{ seq: string }>(em, `select seq::text as seq from ${tableNamer(em)(this.passTable)} where connection_id = ?::uuid and pass_key = ?`, [connectionId, passKey]);
    return row && Number(row.seq);
  }

  /** Records that the unfinished pass `passKey` carried `memberIds` in a batch fetched at `seenAt`. */
  async sight(em: Em, connectionId: string, passKey: string, memberIds: readonly string[], seenAt: string): Promise<void> {
    if (memberIds.length === 0) return;
    await query(
      em,
      `insert into ${tableNamer(em)(this.sightingTable)} as s (connection_id, pass_key, ${this.member}, seen_at)
       select ?::uuid, ?::text, id, ?::timestamptz from unnest(?::text[]) as id order by id
       on conflict (connection_id, pass_key, ${this.member}) do update set seen_at = greatest(s.seen_at, excluded.seen_at)`,
      [connectionId, passKey, seenAt, arrayLiteral(memberIds)],
    );
  }

  /**
   * Records that unit `unitId` of the unfinished pass `passKey` delivered its final page (fetched
   * at `fetchedAt`; a final page sent again under a new lease counts once) and returns how many
   * units of the pass did so, with the newest of their final-page fetch times. The count is one
   * index range of the pass's rows (at most its units, 10,000 by the plan limit).
   */
  async finishUnit(em: Em, connectionId: string, passKey: string, unitId: string, fetchedAt: string): Promise<{ units: number; lastFinalAt: string }> {
    const table = tableNamer(em)(this.passUnitTable);
    await query(
      em,
      `insert into ${table} as u (connection_id, pass_key, unit_id, final_fetched_at) values (?::uuid, ?, ?, ?::timestamptz)
       on conflict (connection_id, pass_key, unit_id) do update set final_fetched_at = greatest(u.final_fetched_at, excluded.final_fetched_at)`,
      [connectionId, passKey, unitId, fetchedAt],
    );
    const [row] = await query<{ units: number; last_final_at: string }>(
      em,
      `select count(*)::int as units, ${isoSql('max(final_fetched_at)')} as last_final_at from ${table} where connection_id = ?::uuid and pass_key = ?`,
      [connectionId, passKey],
    );
    if (!row) throw new Error(`${this.passUnitTable} count returned no row`);
    return { units: row.units, lastFinalAt: row.last_final_at };
  }

  /** Drops what an unfinished pass recorded (its sightings and finished units). */
  async dropSightings(em: Em, connectionId: string, passKey: string): Promise<void> {
    const t = tableNamer(em);
    await query(em, `delete from ${t(this.sightingTable)} where connection_id = ?::uuid and pass_key = ?`, [connectionId, passKey]);
    await query(em, `delete from ${t(this.passUnitTable)} where connection_id = ?::uuid and pass_key = ?`, [connectionId, passKey]);
  }

  /**
   * Completes the pass whose final page (fetched at `capturedAt`) is being committed: numbers it,
   * reads its first and newest page fetch times from the ingest ledger (the committed batches of
   * its sync — of its one unit when `unitId` is given, of every unit of the dataset's kind
   * otherwise — plus this one; a batch without a sync has none there), closes the roster rows of members it did not carry, opens rows for
   * members it carried that are not listed, and drops its sightings, sightings abandoned a day
   * before it started, and passes no live cursor can still be on. Returns its sequence number.
   */
  async complete(em: Em, pass: { connectionId: string; passKey: string; syncId: string | null; unitId: string | null; capturedAt: string }): Promise<number> {
    const t = tableNamer(em);
    const { connectionId, passKey } = pass;
    const [row] = await query<{ seq: string; started_at: string }>(
      em,
      `insert into ${t(this.passTable)} (connection_id, seq, pass_key, started_at, fetched_at, captured_at, published_at)
       select ?::uuid, coalesce((select max(seq) from ${t(this.passTable)} where connection_id = ?::uuid), 0) + 1, ?::text,
              least(l.first, ?::timestamptz), greatest(l.last, ?::timestamptz), ?::timestamptz, now()
         from (select min(b.fetched_at) as first, max(b.fetched_at) as last from ${t('ingest_batch')} b
                where b.connection_id = ?::uuid and b.kind = ? and b.status = 'committed' and b.sync_id = ?::text and (?::text is null or b.unit_id = ?::text)) as l
       returning seq::text as seq, started_at::text as started_at`,
      [connectionId, connectionId, passKey, pass.capturedAt, pass.capturedAt, pass.capturedAt, connectionId, this.dataset.kind, pass.syncId, pass.unitId, pass.unitId],
    );
    if (!row) throw new Error(`${this.passTable} insert returned no row`);
    const seq = Number(row.seq);
    const carried = `select 1 from ${t(this.sightingTable)} s where s.connection_id = ?::uuid and s.pass_key = ? and s.${this.member} = r.${this.member}`;
    await query(em, `update ${t(this.rosterTable)} r set to_seq = ?::bigint where r.connection_id = ?::uuid and r.to_seq is null and not exists (${carried})`, [seq, connectionId, connectionId, passKey]);
    await query(
      em,
      `insert into ${t(this.rosterTable)} (connection_id, ${this.member}, from_seq)
       select s.connection_id, s.${this.member}, ?::bigint from ${t(this.sightingTable)} s
        where s.connection_id = ?::uuid and s.pass_key = ?
          and not exists (select 1 from ${t(this.rosterTable)} r where r.connection_id = s.connection_id and r.${this.member} = s.${this.member} and r.to_seq is null)
        order by s.${this.member}`,
      [seq, connectionId, passKey],
    );
    await query(em, `delete from ${t(this.sightingTable)} where connection_id = ?::uuid and (pass_key = ? or seen_at < ?::timestamptz - ${ABANDONED_SIGHTINGS})`, [connectionId, passKey, row.started_at]);
    await query(em, `delete from ${t(this.passUnitTable)} where connection_id = ?::uuid and (pass_key = ? or final_fetched_at < ?::timestamptz - ${ABANDONED_SIGHTINGS})`, [
      connectionId,
      passKey,
      row.started_at,
    ]);
    await query(
      em,
      `delete from ${t(this.passTable)} where connection_id = ?::uuid
          and seq < (select max(seq) from ${t(this.passTable)} where connection_id = ?::uuid and published_at < now() - ${PASS_RETENTION})`,
      [connectionId, connectionId],
    );
    return seq;
  }

  /**
   * A page of pass `seq` committed after the pass completed (a late redelivery, or a final page
   * sent again under a new lease): its members not listed in `seq` get a roster row from `seq` on.
   * The row is a new insert, so walks already on `seq` (their horizon predates it) do not see it.
   */
  async listLate(em: Em, connectionId: string, seq: number, memberIds: readonly string[]): Promise<void> {
    if (memberIds.length === 0) return;
    const t = tableNamer(em);
    await query(
      em,
      `insert into ${t(this.rosterTable)} (connection_id, ${this.member}, from_seq)
       select ?::uuid, id, ?::bigint from unnest(?::text[]) as id
        where not exists (select 1 from ${t(this.rosterTable)} r where r.connection_id = ?::uuid and r.${this.member} = id and r.from_seq <= ? and (r.to_seq is null or r.to_seq > ?))
        order by id
       on conflict do nothing`,
      [connectionId, seq, arrayLiteral(memberIds), connectionId, seq, seq],
    );
  }

  /** Every listing of one member (driver or vehicle), oldest first. */
  async roster(em: Em, connectionId: string, memberId: string): Promise<RosterInterval[]> {
    const rows = await query<{ from_seq: string; to_seq: string | null }>(
      em,
      `select from_seq::text as from_seq, to_seq::text as to_seq from ${tableNamer(em)(this.rosterTable)} where connection_id = ?::uuid and ${this.member} = ? order by from_seq`,
      [connectionId, memberId],
    );
    return rows.map((r) => ({ from_seq: Number(r.from_seq), to_seq: r.to_seq === null ? null : Number(r.to_seq) }));
  }

  /**
   * The final-page fetch time of the newest stored complete pass that listed the member (its open
   * listing's current pass, else the pass before the one that closed its last listing); null when
   * no complete pass listed it, or that pass was pruned (more than a day old).
   */
  async lastListedAt(em: Em, connectionId: string, memberId: string): Promise<string | null> {
    const t = tableNamer(em);
    const [row] = await query<{ captured_at: string }>(
      em,
      `select ${isoSql('p.captured_at')} as captured_at
         from ${t(this.rosterTable)} r join ${t(this.passTable)} p on p.connection_id = r.connection_id and p.seq >= r.from_seq and (r.to_seq is null or p.seq < r.to_seq)
        where r.connection_id = ?::uuid and r.${this.member} = ?
        order by p.seq desc limit 1`,
      [connectionId, memberId],
    );
    return row?.captured_at ?? null;
  }

  /** `alias` (a row of the dataset) is listed by pass `seq` as a walk in the horizon sees it (params: seq, seq, horizon). */
  listedIn(alias: string, t: (table: string) => string): string {
    return `exists (select 1 from ${t(this.rosterTable)} r where r.connection_id = ${alias}.connection_id and r.${this.member} = ${alias}.id and r.from_seq <= ? and (r.to_seq is null or r.to_seq > ?) and ${inHorizon('r')})`;
  }
}
