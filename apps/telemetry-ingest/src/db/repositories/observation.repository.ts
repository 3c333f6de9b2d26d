/**
 * Writes observation batches: history into the partitioned `observations` and the forward-only
 * `latest_readings`, on the batch's transaction: the rows are COPYed into a session temp table
 * (`observation_stage`, ON COMMIT DELETE ROWS) on the transaction's own connection, then ONE
 * statement inserts history (ON CONFLICT DO NOTHING) and moves latest readings forward from it.
 * Plus on-demand monthly partitions, and their drop once a month is past retention (decision 0025).
 *
 * Why COPY into staging (decision 0012): the previous single statement over
 * `json_to_recordset(?::json)` sent the batch as one JSON literal that MikroORM escapes and inlines;
 * COPY text streams the rows and the server parses them line by line. The staging hop keeps the
 * write idempotent (a COPY straight into `observations` would fail on a re-ingested reading) and
 * lets one statement serve history and latest. Measured with `npm run bench -- ingest-observations`
 * (bench/README.md, "Results").
 *
 * The transaction's connection: MikroORM runs queries through Kysely, which does not expose the
 * `pg` client of a transaction. The client is found in MikroORM's `pg` pool by the backend pid the
 * transaction reports (`pg_backend_pid()` = the client's `processID`); `pg-copy-streams` then runs
 * COPY on it between the ORM's statements, so the COPY commits or rolls back with the ledger row,
 * the cursor and the receipt state. If that lookup ever fails (a `pg`/`pg-pool` upgrade renaming
 * `_clients`/`processID`) the write throws: the batch is retried and dead-lettered loudly, never
 * written outside its transaction. The integration tests exercise this path on every run.
 *
 * Each new history row takes its public `sequence` from `observation_seq` (migration 0003) in the
 * same statement; `created_xid` is the column default.
 * Invariants: re-ingesting a reading is a no-op (primary key, DO NOTHING); a latest row moves only
 * to a later (observed_at, source); rows go in key order so concurrent batches lock alike; the
 * staging table is empty outside a write (emptied at commit, and before each COPY).
 */
import { createRequire } from 'node:module';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { inTransaction, ormSchema, query, tableNamer, type Em, type Orm } from '@switchyard/persistence';

// pg-copy-streams 7 ships no types; its one function used here is typed at the require (no
// ambient declaration, which every project compiling this file would have to include).
const { from: copyFrom } = createRequire(import.meta.url)('pg-copy-streams') as { from(sql: string): NodeJS.WritableStream };

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
}

const COLUMNS = ['connection_id', 'vehicle_id', 'metric', 'observed_at', 'source', 'provider', 'vehicle_source_id', 'value', 'value_num', 'units', 'fetched_at', 'batch_id'] as const;
const NAMES = COLUMNS.join(', ');
/** Rows per chunk handed to the COPY stream (bounds the string built at once). */
const COPY_CHUNK_ROWS = 500;

/** One value as a field of PostgreSQL's COPY text format: NULL as `\N`, objects as JSON, `\`, tab, LF, CR escaped. */
export function copyField(value: unknown): string {
  if (value === null || value === undefined) return '\\N';
  const text = typeof value === 'object' ? JSON.stringify(value) : String(value as string | number | boolean);
  return text.replace(/[\\\t\n\r]/g, (c) => (c === '\\' ? '\\\\' : c === '\t' ? '\\t' : c === '\n' ? '\\n' : '\\r'));
}

/** One row as a COPY text line (tab-separated fields, newline included). */
export function copyLine(values: readonly unknown[]): string {
  return `${values.map(copyField).join('\t')}\n`;
}

/** The observation columns of `row` in COLUMNS order, as one COPY text line. */
export function observationCopyLine(row: ObservationRow): string {
  return copyLine(COLUMNS.map((c) => row[c]));
}

/** The part of a `pg` Client and Pool this file relies on (`pg` ships no types here). */
interface PgClient {
  processID?: number | null;
  query(submittable: NodeJS.WritableStream): NodeJS.WritableStream;
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

/** `2026-01` for every month the rows touch (UTC). */
export function monthsOf(observedAt: readonly string[]): string[] {
  return [...new Set(observedAt.map((at) => new Date(at).toISOString().slice(0, 7)))].sort();
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
   */
  async write(em: Em, rows: readonly ObservationRow[], historyFrom?: string): Promise<number> {
    if (rows.length === 0) return 0;
    const t = tableNamer(em);
    const client = await transactionClient(em);
    // Session-local, created once per connection; ON COMMIT DELETE ROWS empties it at every commit
    // (a rolled-back write leaves nothing visible either); the delete covers a second write in one transaction.
    // The ingest columns only (seq and created_xid are the target's: NOT NULL there, filled on insert).
    await query(em, `create temp table if not exists observation_stage on commit delete rows as select ${NAMES} from ${t('observations')} with no data`);
    await query(em, 'delete from pg_temp.observation_stage');
    const lines = Readable.from(
      (function* chunks() {
        for (let i = 0; i < rows.length; i += COPY_CHUNK_ROWS) yield rows.slice(i, i + COPY_CHUNK_ROWS).map(observationCopyLine).join('');
      })(),
    );
    await pipeline(lines, client.query(copyFrom(`copy pg_temp.observation_stage (${NAMES}) from stdin`)));
    const [result] = await query<{ inserted: string }>(
      em,
      `with history as (
         insert into ${t('observations')} (${NAMES}, seq)
         select ${NAMES}, nextval('${t('observation_seq')}') from pg_temp.observation_stage
          where observed_at >= coalesce(?::timestamptz, '-infinity') order by vehicle_id, metric, observed_at, source
         on conflict do nothing returning 1),
       latest as (
         insert into ${t('latest_readings')} as t (${NAMES}, updated_at)
         select distinct on (vehicle_id, metric) ${NAMES}, now() from pg_temp.observation_stage order by vehicle_id, metric, observed_at desc, source desc
         on conflict (connection_id, vehicle_id, metric) do update set
           observed_at = excluded.observed_at, source = excluded.source, provider = excluded.provider,
           vehicle_source_id = excluded.vehicle_source_id, value = excluded.value, value_num = excluded.value_num,
           units = excluded.units, fetched_at = excluded.fetched_at, batch_id = excluded.batch_id, updated_at = excluded.updated_at
         where (excluded.observed_at, excluded.source) > (t.observed_at, t.source)
         returning 1)
       select (select count(*) from history) as inserted, (select count(*) from latest) as moved`,
      [historyFrom ?? null],
    ).catch((error: unknown) => {
      // A month this process listed was dropped after all (a clock more than the drop margin
      // behind another process's): forget the cache, so the batch's retry checks the catalog again.
      if (error instanceof Error && error.message.includes('no partition of relation')) known(ormSchema(em)).clear();
      throw error;
    });
    return Number(result?.inserted ?? 0);
  }
}
