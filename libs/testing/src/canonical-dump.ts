/**
 * A canonical dump of what the contexts stored: the oracle of the crash and provider-scenario tests
 * ("afterwards a canonical dump of every context's stored data is byte-identical to a run without
 * faults"). Two runs that collected the same provider data must produce the same string, however
 * their deliveries were interleaved, retried or duplicated.
 *
 * Decisions:
 * - only data tables are dumped (DUMP_TABLES per context), never bookkeeping (ledgers, cursors,
 *   leases, migrations): those legitimately differ after a crash;
 * - columns and JSON keys that record WHEN or IN WHICH DELIVERY something was stored (fetch times,
 *   publication numbers, batch ids, random ids, per-connection sequences) are dropped at any depth
 *   (VOLATILE_KEYS); what remains is the normalized data itself;
 * - each row becomes one JSON line with sorted keys; lines are sorted, so row order (and physical
 *   insertion order) does not matter; tables are emitted in a fixed order with a header line;
 * - both runs must use the same connection ids (public ids are minted from them), in different
 *   schemas or databases.
 */
import { createOrm } from '@switchyard/persistence';

export type DumpContext = 'directory' | 'telemetry' | 'faults';

/** The data tables of each context, in dump order. */
export const DUMP_TABLES: Readonly<Record<DumpContext, readonly string[]>> = {
  directory: ['vehicle', 'driver', 'group', 'trip'],
  telemetry: ['observations', 'latest_readings'],
  faults: ['fault_occurrence', 'fault_transition'],
};

/** Column / JSON key names that vary between equivalent runs (snake_case columns and camelCase payload keys). */
export const VOLATILE_KEYS: readonly string[] = [
  'fetched_at', 'fetchedAt',
  'first_seen_at', 'last_seen_at',
  'modified_at', 'updated_at', 'created_at', 'published_at', 'committed_at',
  'publication',
  'batch_id', 'batchId',
  // directory: the snapshot horizon of stable keyset pages (a transaction id, per run)
  'created_xid',
];

/**
 * Columns dropped only in one table, where they are random or delivery-ordered (fault-feed's
 * occurrence / transition uuids and per-connection sequence, telemetry's observation `seq`); `id` of directory rows is the stable
 * public id and is kept.
 */
export const VOLATILE_BY_TABLE: Readonly<Record<string, readonly string[]>> = {
  fault_occurrence: ['id'],
  fault_transition: ['id', 'occurrence_id', 'sequence', 'payload'],
  // telemetry-ingest's history order key (observation_seq): the order batches were committed in.
  observations: ['seq'],
};

export interface CanonicalDumpOptions {
  /** PostgreSQL URL of the database holding the schemas. */
  readonly clientUrl: string;
  /** The schema of each context to dump (omit a context to skip it). */
  readonly schemas: Partial<Record<DumpContext, string>>;
  /** Only rows of these connections (default: all rows). */
  readonly connectionIds?: readonly string[];
  /** Extra keys to drop everywhere (for data a test knows is time-dependent). */
  readonly extraVolatileKeys?: readonly string[];
}

function stableStringify(value: unknown, drop: ReadonlySet<string>): string {
  if (Array.isArray(value)) return `[${value.map((v) => stableStringify(v, drop)).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.keys(value as Record<string, unknown>)
      .filter((k) => !drop.has(k))
      .sort()
      .map((k) => `${JSON.stringify(k)}:${stableStringify((value as Record<string, unknown>)[k], drop)}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(value);
}

function dropSetFor(table: string, extra: readonly string[]): ReadonlySet<string> {
  return new Set([...VOLATILE_KEYS, ...(VOLATILE_BY_TABLE[table] ?? []), ...extra]);
}

/**
 * Times that are our reads, not the provider's: a complete-snapshot fault (Samsara, Motive) is
 * observed, opened at bootstrap and cleared at the read that saw it (docs/faults.md "Times", issue
 * 31 item 3), so two equivalent runs — or the same window read again — differ in them exactly as in
 * `fetched_at`. Explicit-record faults (Geotab) keep every time: those are the provider's records'.
 */
const SNAPSHOT_READ_TIMES: Readonly<Record<string, readonly string[]>> = {
  fault_occurrence: ['opened_at', 'last_observed_at', 'cleared_at'],
  fault_transition: ['observed_at'],
};

function isSnapshotFault(row: Record<string, unknown>): boolean {
  const payload = row.payload as { model?: unknown } | null | undefined;
  return row.model === 'complete_snapshot' || payload?.model === 'complete_snapshot';
}

function dropSetForRow(table: string, row: Record<string, unknown>, base: ReadonlySet<string>): ReadonlySet<string> {
  const readTimes = SNAPSHOT_READ_TIMES[table];
  return readTimes && isSnapshotFault(row) ? new Set([...base, ...readTimes]) : base;
}

/** The canonical dump of the given contexts' data tables (see the header for what is dropped). */
export async function canonicalDump(options: CanonicalDumpOptions): Promise<string> {
  const orm = await createOrm({ clientUrl: options.clientUrl, schema: 'public', entities: [], migrations: [], allServiceSchemas: [], poolMax: 2, logger: () => undefined });
  try {
    const em = orm.em.fork();
    const out: string[] = [];
    for (const context of Object.keys(DUMP_TABLES) as DumpContext[]) {
      const schema = options.schemas[context];
      if (schema === undefined) continue;
      for (const table of DUMP_TABLES[context]) {
        const filter = options.connectionIds ? 'where t.connection_id = any(?::uuid[])' : '';
        const params = options.connectionIds ? [`{${options.connectionIds.join(',')}}`] : [];
        const rows = await em.execute<{ row: Record<string, unknown> }[]>(`select to_jsonb(t) as row from "${schema}"."${table}" t ${filter}`, params);
        const drop = dropSetFor(table, options.extraVolatileKeys ?? []);
        const lines = rows
          .map((r) => (typeof r.row === 'string' ? JSON.parse(r.row) : r.row) as Record<string, unknown>)
          .map((row) => stableStringify(row, dropSetForRow(table, row, drop)))
          .sort();
        out.push(`# ${context}.${table} (${lines.length})`, ...lines);
      }
    }
    return `${out.join('\n')}\n`;
  } finally {
    await orm.close(true);
  }
}

/** A short human-readable difference (first differing lines) for test failure messages. */
export function dumpDifference(expected: string, actual: string, maxLines = 20): string {
  if (expected === actual) return '';
  const a = expected.split('\n');
  const b = actual.split('\n');
  const onlyExpected = a.filter((l) => !b.includes(l)).slice(0, maxLines);
  const onlyActual = b.filter((l) => !a.includes(l)).slice(0, maxLines);
  return [`missing (${onlyExpected.length} shown):`, ...onlyExpected.map((l) => `- ${l}`), `unexpected (${onlyActual.length} shown):`, ...onlyActual.map((l) => `+ ${l}`)].join('\n');
}
