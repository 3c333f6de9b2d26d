/**
 * Writes observation batches: history into the partitioned `observations` and the forward-only
 * `latest_readings`, on the batch's transaction (or a group's, decision 0038): the history rows
 * are COPYed straight into `observations` inside a savepoint, and only when that meets a stored
 * reading are they COPYed into a session temp table (`observation_stage`, ON COMMIT DELETE ROWS)
 * and inserted from it with ON CONFLICT DO NOTHING; then one upsert moves latest readings forward.
 * Plus on-demand monthly partitions, and their drop once a month is past retention (decision 0025).
 *
 * Why COPY (decision 0012): the previous single statement over `json_to_recordset(?::json)` sent
 * the batch as one JSON literal that MikroORM escapes and inlines; COPY text streams the rows and
 * the server parses them line by line. Why straight into the table first (decision 0038): the
 * staging hop wrote and read every row twice (~45 % of a batch's database time on the ingest
 * benchmark); a re-ingested reading — the only case a COPY into `observations` fails on — is the
 * exception (a re-fetched page, a re-leased unit), and the savepoint sends just that group the
 * old way. Measured with `npm run bench -- ingest-observations` (bench/README.md, "Results").
 *
 * The transaction's connection: MikroORM runs queries through Kysely, which does not expose the
 * `pg` client of a transaction. The client is found in MikroORM's `pg` pool by the backend pid the
 * transaction reports (`pg_backend_pid()` = the client's `processID`); `pg-copy-streams` then runs
 * COPY on it between the ORM's statements, so the COPY commits or rolls back with the ledger row,
 * the cursor and the receipt state. If that lookup ever fails (a `pg`/`pg-pool` upgrade renaming
 * `_clients`/`processID`) the write throws: the batch is retried and dead-lettered loudly, never
 * written outside its transaction. The integration tests exercise this path on every run.
 *
 * Each new history row takes its public `sequence` from `observation_seq` and its `created_xid`
 * from the column defaults (migrations 0003, 0007; pg_current_xact_id() is the top-level
 * transaction's id inside the savepoint too, the id a history walk's snapshot tests).
 * Invariants: re-ingesting a reading is a no-op (the COPY refused, the staged insert DO NOTHING);
 * a latest row moves only to a later (observed_at, source); the staged insert and the latest
 * upsert go in key order so concurrent batches lock alike, and a COPY that deadlocks with another
 * batch on a shared reading falls back to the ordered insert; the staging table is empty outside a
 * write (the statement that reads it deletes what it read, a rollback or a commit leaves nothing).
 * Round trips per write: the backend pid, the savepoint, the COPY, the latest upsert.
 */
import { createRequire } from 'node:module';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { inTransaction, ormSchema, query, tableNamer, type Em, type Orm } from '@switchyard/persistence';

// pg-copy-streams 7 ships no types; its one function used here is typed at the require (no
// ambient declaration, which every project compiling this file would have to include).
const { from: copyFrom } = createRequire(import.meta.url)('pg-copy-streams') as { from(sql: string): NodeJS.WritableStream & { rowCount?: number } };

export interface ObservationRow {
  connection_id: string;
  vehicle_id: string;
  metric: string;
  observed_at: string;
  source: string;
  provider: string;
  vehicle_source_id: string;
  value: unknown;
  value_num: number | null;
  units: unknown;
  fetched_at: string;
  batch_id: string;
  /** Date.parse(observed_at), when the caller has it already (not a column). */
  observed_ms?: number;
}

const COLUMNS = ['connection_id', 'vehicle_id', 'metric', 'observed_at', 'source', 'provider', 'vehicle_source_id', 'value', 'value_num', 'units', 'fetched_at', 'batch_id'] as const;
const NAMES = COLUMNS.join(', ');
/** Rows per chunk handed to the COPY stream: ~2.5 MB of text at once (500 cost the consumer ~0.3 s of stream and socket overhead per 100,000 rows). */
const COPY_CHUNK_ROWS = 4_000;

const NEEDS_ESCAPE = /[\\\t\n\r]/;

/** One value as a field of PostgreSQL's COPY text format: NULL as `\N`, objects as JSON, `\`, tab, LF, CR escaped. */
export function copyField(value: unknown): string {
  if (value === null || value === undefined) return '\\N';
  const text = typeof value === 'object' ? JSON.stringify(value) : String(value as string | number | boolean);
  // Most fields need no escape: testing first spares the replace's new string (the consumer's hottest function on the benchmark).
  return NEEDS_ESCAPE.test(text) ? text.replace(/[\\\t\n\r]/g, (c) => (c === '\\' ? '\\\\' : c === '\t' ? '\\t' : c === '\n' ? '\\n' : '\\r')) : text;
}

/** One row as a COPY text line (tab-separated fields, newline included). */
export function copyLine(values: readonly unknown[]): string {
  let line = '';
  for (let i = 0; i < values.length; i++) line += (i === 0 ? '' : '\t') + copyField(values[i]);
  return `${line}\n`;
}

/**
 * The observation columns of `row` in COLUMNS order, as one COPY text line. The ids, the metric,
 * the provider and both times are written as they are: validated on the bus (a uuid, an enum, an
 * RFC 3339 time, an ingest batch id of `[a-z0-9_-]`) or minted here (`vcl_` + Crockford base32),
 * none can hold a tab, newline or backslash; the provider's own strings and the values are
 * escaped (copyField). The spec holds this equal to copyLine over COLUMNS.
 */
export function observationCopyLine(r: ObservationRow): string {
  return `${r.connection_id}\t${r.vehicle_id}\t${r.metric}\t${r.observed_at}\t${copyField(r.source)}\t${r.provider}\t${copyField(r.vehicle_source_id)}\t${copyField(r.value)}\t${copyField(r.value_num)}\t${copyField(r.units)}\t${r.fetched_at}\t${r.batch_id}\n`;
}

/** The part of a `pg` Client and Pool this file relies on (`pg` ships no types here). */
interface PgClient {
  processID?: number | null;
  query(text: string): Promise<unknown>;
  query<S extends NodeJS.WritableStream>(submittable: S): S;
}
interface PgPool {
  _clients?: PgClient[];
}

/** The `pg` client running `em`'s transaction (see the header). */
async function transactionClient(em: Em): Promise<PgClient> {
  if (!em.isInTransaction()) throw new Error('observation writes must run inside the batch transaction');
  const [row] = await query<{ pid: number }>(em, 'select pg_backend_pid() as pid');
  const pool = (await em.getConnection().getNativeClient()) as PgPool;
  const client = pool._clients?.find((c) => c.processID === row?.pid);
  if (!client) throw new Error(`the pg client of backend ${row?.pid} was not found in the ORM pool; COPY cannot join the transaction`);
  return client;
}

const COPY_SAVEPOINT = 'observation_copy';

/** COPYs `rows` (COPY text, in chunks) with `sql` on `client`; returns the rows the server stored. */
async function copyRows(client: PgClient, sql: string, rows: readonly ObservationRow[]): Promise<number> {
  const lines = Readable.from(
    (function* chunks() {
      let text = '';
      let n = 0;
      for (const row of rows) {
        text += observationCopyLine(row);
        if (++n === COPY_CHUNK_ROWS) {
          yield text;
          text = '';
          n = 0;
        }
      }
      if (text !== '') yield text;
    })(),
  );
  const copy = client.query(copyFrom(sql));
  await pipeline(lines, copy);
  return Number(copy.rowCount ?? rows.length);
}

/** A COPY that met a stored or concurrently inserted reading: unique violation (23505) or deadlock (40P01). */
function isCopyConflict(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === '23505' || code === '40P01';
}

/**
 * A month this process listed was dropped after all (a clock more than the drop margin behind
 * another process's): the cache is forgotten, so the batch's retry checks the catalog again.
 */
function forgetDroppedMonths(em: Em, error: unknown): unknown {
  if (error instanceof Error && error.message.includes('no partition of relation')) known(ormSchema(em)).clear();
  return error;
}

// Advisory lock namespace for partition DDL ("SWTP"), second key hashtext(schema): creation and drop.
const PARTITION_LOCK = 0x53575450;
const PARTITION_NAME = /^observations_y(\d{4})m(\d{2})$/;

/** The monthly partition holding `month` (`2026-01` → `observations_y2026m01`). */
export function partitionName(month: string): string {
  const [year, mm] = month.split('-') as [string, string];
  return `observations_y${year}m${mm}`;
}

/**
 * The partitions this process knows to exist, per schema: module-wide, so a drop by the retention
 * job (any ObservationRepository of the process) is forgotten by the ingest's repository too.
 * Another process may still list a dropped month; the ingest never asks for one (it stores no
 * history before the retention horizon, which stays a day ahead of every dropped month: decision 0025).
 */
const knownPartitions = new Map<string, Set<string>>();
function known(schema: string): Set<string> {
  let set = knownPartitions.get(schema);
  if (!set) knownPartitions.set(schema, (set = new Set()));
  return set;
}

/** `2026-01` of one RFC 3339 time, in UTC (a `Z` time is read as written; an offset needs the Date). */
export function monthOf(at: string): string {
  return at.endsWith('Z') ? at.slice(0, 7) : new Date(at).toISOString().slice(0, 7);
}


export class ObservationRepository {
  /**
   * Creates the monthly partitions of `months` that do not exist yet, each in its own short
   * transaction under an advisory lock (CREATE … PARTITION OF locks the parent; two processes
   * racing on `if not exists` could still collide on the catalog, the lock serializes them).
   * Outside the batch's transaction so the parent's lock is held for milliseconds, not a batch.
   * The set of known partitions is cached per process and schema (knownPartitions).
   */
  async ensurePartitions(orm: Orm, months: readonly string[]): Promise<void> {
    const schema = ormSchema(orm);
    const cache = known(schema);
    for (const month of months) {
      if (cache.has(month)) continue;
      const [year, mm] = month.split('-').map(Number) as [number, number];
      const from = new Date(Date.UTC(year, mm - 1, 1)).toISOString();
      const to = new Date(Date.UTC(year, mm, 1)).toISOString();
      const name = partitionName(month);
      await inTransaction(orm, async (em) => {
        const t = tableNamer(em);
        const [exists] = await query<{ found: boolean }>(em, `select to_regclass(?) is not null as found`, [t(name)]);
        if (exists?.found) return;
        await query(em, 'select pg_advisory_xact_lock(?, hashtext(?))', [PARTITION_LOCK, schema]);
        await query(em, `create table if not exists ${t(name)} partition of ${t('observations')} for values from ('${from}') to ('${to}')`);
      });
      cache.add(month);
    }
  }

  /** The months (`2026-01`) of the schema's monthly partitions, oldest first. */
  async partitionMonths(em: Em): Promise<string[]> {
    const rows = await query<{ name: string }>(
      em,
      `select c.relname as name from pg_inherits i join pg_class c on c.oid = i.inhrelid
        where i.inhparent = to_regclass(?) order by c.relname`,
      [tableNamer(em)('observations')],
    );
    return rows.flatMap(({ name }) => {
      const m = PARTITION_NAME.exec(name);
      return m ? [`${m[1]}-${m[2]}`] : [];
    });
  }

  /**
   * Drops the monthly partitions of months before `beforeMonth` (`2026-01`), each in its own short
   * transaction under the partition DDL lock (no creation of the same month interleaves), and
   * forgets them in this process's cache. DROP locks the parent ACCESS EXCLUSIVE: it waits for
   * batches writing history (at most DB_LOCK_TIMEOUT_MS, then the pass fails and the next retries)
   * and holds them back for the drop's milliseconds. Returns the months dropped.
   */
  async dropPartitionsBefore(orm: Orm, beforeMonth: string): Promise<string[]> {
    const schema = ormSchema(orm);
    const old = (await this.partitionMonths(orm.em.fork())).filter((month) => month < beforeMonth);
    for (const month of old) {
      await inTransaction(orm, async (em) => {
        await query(em, 'select pg_advisory_xact_lock(?, hashtext(?))', [PARTITION_LOCK, schema]);
        await query(em, `drop table if exists ${tableNamer(em)(partitionName(month))}`);
      });
      known(schema).delete(month);
    }
    return old;
  }

  /**
   * Inserts history (duplicates ignored) and moves latest readings forward; returns rows new to
   * history. `historyFrom` (ISO): rows observed before it move latest readings only (the
   * retention horizon, decision 0025: history before it is not kept, its partitions may be gone).
   * The rows may belong to several batches and connections (a group, decision 0038).
   *
   * History is COPYed straight into `observations` inside a savepoint (seq and created_xid are
   * column defaults, migrations 0003 and 0007): the usual batch holds only new readings, and COPY
   * is the cheapest way in. When the COPY meets a stored reading (a re-fetched page: unique
   * violation) or a concurrent batch's (deadlock), the savepoint is rolled back and the rows go
   * through the stage instead — COPY into `observation_stage`, then one INSERT … ON CONFLICT DO
   * NOTHING in key order — so a re-ingest is still a no-op. Latest readings: the newest row per
   * vehicle and metric of the rows, chosen here, in one upsert that moves a row forward only.
   */
  async write(em: Em, rows: readonly ObservationRow[], historyFrom?: string): Promise<number> {
    if (rows.length === 0) return 0;
    const from = historyFrom === undefined ? -Infinity : Date.parse(historyFrom);
    const history = from === -Infinity ? rows : rows.filter((r) => (r.observed_ms ?? Date.parse(r.observed_at)) >= from);
    const inserted = history.length === 0 ? 0 : await this.writeHistory(em, history);
    await this.moveLatest(em, rows);
    return inserted;
  }

  private async writeHistory(em: Em, rows: readonly ObservationRow[]): Promise<number> {
    const t = tableNamer(em);
    const client = await transactionClient(em);
    // Not released: it ends with the transaction, and a RELEASE would be one more round trip per group.
    await client.query(`savepoint ${COPY_SAVEPOINT}`);
    try {
      return await copyRows(client, `copy ${t('observations')} (${NAMES}) from stdin`, rows);
    } catch (error) {
      if (!isCopyConflict(error)) throw forgetDroppedMonths(em, error);
      await client.query(`rollback to savepoint ${COPY_SAVEPOINT}`);
    }
    // Session-local, created by the first staged write of a pooled connection (asked every time: the
    // staged path is the rare one, and a creation rolled back with its transaction must be redone);
    // ON COMMIT DELETE ROWS empties it at every commit and a rollback leaves nothing visible.
    await query(em, `create temp table if not exists observation_stage on commit delete rows as select ${NAMES} from ${t('observations')} with no data`);
    await copyRows(client, `copy pg_temp.observation_stage (${NAMES}) from stdin`, rows);
    // `staged` takes the rows out of the stage, so a second write in the same transaction starts empty.
    const [result] = await query<{ inserted: string }>(
      em,
      `with staged as (delete from pg_temp.observation_stage returning ${NAMES}),
       history as (
         insert into ${t('observations')} (${NAMES})
         select ${NAMES} from staged order by connection_id, vehicle_id, metric, observed_at, source
         on conflict do nothing returning 1)
       select count(*) as inserted from history`,
    ).catch((error: unknown) => {
      throw forgetDroppedMonths(em, error);
    });
    return Number(result?.inserted ?? 0);
  }

  /**
   * Latest readings from `rows`: per (connection, vehicle, metric) only the rows at its newest
   * millisecond leave this process (usually one; ties and finer precision are decided by the
   * statement: observed_at, then source in the database's order, as before), moved forward only.
   */
  private async moveLatest(em: Em, rows: readonly ObservationRow[]): Promise<void> {
    // Nested maps (connection → vehicle → metric), held entries updated in place: no key string or
    // entry allocated per row (this loop was the consumer's hottest function on the benchmark).
    const newest = new Map<string, Map<string, Map<string, { at: number; rows: ObservationRow[] }>>>();
    const all: { at: number; rows: ObservationRow[] }[] = [];
    for (const row of rows) {
      const at = row.observed_ms ?? Date.parse(row.observed_at);
      let vehicles = newest.get(row.connection_id);
      if (!vehicles) newest.set(row.connection_id, (vehicles = new Map()));
      let metrics = vehicles.get(row.vehicle_id);
      if (!metrics) vehicles.set(row.vehicle_id, (metrics = new Map()));
      const held = metrics.get(row.metric);
      if (!held) {
        const entry = { at, rows: [row] };
        metrics.set(row.metric, entry);
        all.push(entry);
      } else if (at > held.at) {
        held.at = at;
        held.rows.length = 0;
        held.rows.push(row);
      } else if (at === held.at) held.rows.push(row);
    }
    const t = tableNamer(em);
    await query(
      em,
      `insert into ${t('latest_readings')} as t (${NAMES}, updated_at)
       select distinct on (connection_id, vehicle_id, metric) ${NAMES}, now() from json_populate_recordset(null::${t('latest_readings')}, ?::json)
        order by connection_id, vehicle_id, metric, observed_at desc, source desc
       on conflict (connection_id, vehicle_id, metric) do update set
         observed_at = excluded.observed_at, source = excluded.source, provider = excluded.provider,
         vehicle_source_id = excluded.vehicle_source_id, value = excluded.value, value_num = excluded.value_num,
         units = excluded.units, fetched_at = excluded.fetched_at, batch_id = excluded.batch_id, updated_at = excluded.updated_at
       where (excluded.observed_at, excluded.source) > (t.observed_at, t.source)`,
      [JSON.stringify(all.flatMap((n) => n.rows))],
    );
  }
}
