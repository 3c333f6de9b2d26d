/**
 * A PostgreSQL cluster that belongs to one test: initdb into a temporary directory, listening on a
 * free loopback port and on no Unix socket, so a test can stop it (an outage: `immediate` is a
 * crash, `fast` an administrator shutdown) and start it again without ever touching the machine's
 * shared server. Needs the PostgreSQL server binaries (`initdb`, `pg_ctl`; Debian's
 * /usr/lib/postgresql/<version>/bin, or PG_BIN_DIR). As root, the cluster runs as the `postgres`
 * user (PostgreSQL refuses root). Measured here: initdb about 1 s, start about 0.2 s.
 */
import { execFile, execFileSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { chmod, chown, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir, userInfo } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { freePort } from './free-port.js';

const run = promisify(execFile);

export interface OwnedPostgres {
  /** postgres://postgres@127.0.0.1:<port>/postgres (trust auth on loopback). */
  readonly url: string;
  readonly port: number;
  /** Stops the server: `immediate` (a crash: connections cut, recovery on start) by default. */
  stop(mode?: 'immediate' | 'fast'): Promise<void>;
  /** Starts it again on the same port and data; resolves once it accepts connections. */
  start(): Promise<void>;
  /** Stops it (if running) and deletes its data directory. Idempotent. */
  destroy(): Promise<void>;
}

function binDir(): string {
  if (process.env.PG_BIN_DIR) return process.env.PG_BIN_DIR;
  const root = '/usr/lib/postgresql';
  const versions = existsSync(root) ? readdirSync(root).filter((v) => existsSync(path.join(root, v, 'bin', 'initdb'))) : [];
  const newest = versions.sort((a, b) => Number(b) - Number(a))[0];
  if (!newest) throw new Error('owned PostgreSQL: no initdb found (install the PostgreSQL server package or set PG_BIN_DIR)');
  return path.join(root, newest, 'bin');
}

export async function startOwnedPostgres(): Promise<OwnedPostgres> {
  const bin = binDir();
  const asRoot = userInfo().uid === 0;
  const dir = await mkdtemp(path.join(tmpdir(), 'sy-owned-pg-'));
  const data = path.join(dir, 'data');
  if (asRoot) {
    const { stdout } = await run('id', ['-u', 'postgres']);
    const { stdout: gid } = await run('id', ['-g', 'postgres']);
    await chmod(dir, 0o755);
    await chown(dir, Number(stdout.trim()), Number(gid.trim()));
  }
  const pg = (tool: string, args: string[]) => (asRoot ? run('runuser', ['-u', 'postgres', '--', path.join(bin, tool), ...args]) : run(path.join(bin, tool), args));
  await pg('initdb', ['-D', data, '-U', 'postgres', '--auth=trust', '--no-sync', '-E', 'UTF8', '--locale=C']);
  const port = await freePort();
  const options = `-p ${port} -c listen_addresses=127.0.0.1 -c unix_socket_directories= -c fsync=off -c max_connections=200`;
  let running = false;
  let destroyed: Promise<void> | undefined;
  const owned: OwnedPostgres = {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    port,
    async start() {
      await pg('pg_ctl', ['-D', data, '-o', options, '-l', path.join(dir, 'server.log'), '-w', '-t', '30', 'start']);
      running = true;
    },
    async stop(mode = 'immediate') {
      if (!running) return;
      running = false;
      await pg('pg_ctl', ['-D', data, '-m', mode, '-w', 'stop']);
    },
    destroy() {
      destroyed ??= (async () => {
        await owned.stop('immediate').catch(() => undefined);
        await rm(dir, { recursive: true, force: true });
      })();
      return destroyed;
    },
  };
  // A test process that ends without destroy() (a timed-out hook, a killed worker) still stops it.
  const stopOnExit = () => {
    if (!running) return;
    const args = ['-D', data, '-m', 'immediate', '-w', 'stop'];
    try {
      if (asRoot) execFileSync('runuser', ['-u', 'postgres', '--', path.join(bin, 'pg_ctl'), ...args], { stdio: 'ignore' });
      else execFileSync(path.join(bin, 'pg_ctl'), args, { stdio: 'ignore' });
    } catch {
      // already stopped
    }
  };
  process.once('exit', stopOnExit);
  try {
    await owned.start();
  } catch (error) {
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
  return owned;
}
