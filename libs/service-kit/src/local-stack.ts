/**
 * The database and bus `npm start` chose, recorded in `<SWITCHYARD_DATA_DIR>/local-stack.json`
 * (default `./.switchyard`, mode 0600: a DATABASE_URL may carry a password), so the operator and
 * dlq CLIs reach the very same ones without the newcomer exporting anything (issue 23 item 3: the
 * launcher picks database `switchyard`, or an embedded PostgreSQL on its own port, while a CLI left
 * alone used `postgres` on 5432 and found no sandbox connection).
 * Rule: an explicit DATABASE_URL / NATS_URL always wins; the record only fills what is unset. It
 * is rewritten on every start and kept after a stop, so a CLI can say what is missing (the embedded
 * PostgreSQL runs only while `npm start` does; the in-process bus has no DLQ another process reads).
 */
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import path from 'node:path';

export interface LocalStack {
  /** The sandbox database (`…/switchyard`). */
  databaseUrl: string;
  /** true: the launcher's embedded PostgreSQL 15 (data in `<data dir>/pg`), reachable only while it runs. */
  embeddedDatabase: boolean;
  /** The JetStream server, or null for the in-process bus (embedded mode). */
  natsUrl: string | null;
  natsNamespace: string;
  /** The launcher's process id and start time, for a human reading the file. */
  pid: number;
  startedAt: string;
}

export function dataDirOf(env: NodeJS.ProcessEnv): string {
  return path.resolve(env.SWITCHYARD_DATA_DIR || '.switchyard');
}

export function localStackPath(dataDir: string): string {
  return path.join(dataDir, 'local-stack.json');
}

export function writeLocalStack(dataDir: string, stack: LocalStack): void {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const file = localStackPath(dataDir);
  writeFileSync(file, `${JSON.stringify(stack, null, 2)}\n`, { mode: 0o600 });
  chmodSync(file, 0o600);
}

export interface LocalStackEnv {
  /** `env` with DATABASE_URL, NATS_URL and NATS_NAMESPACE filled from the record where unset. */
  env: NodeJS.ProcessEnv;
  /** The record, when there is one and it was used for something. */
  stack?: LocalStack;
  file: string;
}

const blank = (value: string | undefined) => value === undefined || value.trim() === '';

/** What a CLI started beside `npm start` should use (see the rule above). */
export function withLocalStack(env: NodeJS.ProcessEnv): LocalStackEnv {
  const file = localStackPath(dataDirOf(env));
  if (!existsSync(file)) return { env, file };
  const stack = JSON.parse(readFileSync(file, 'utf8')) as LocalStack;
  const filled: NodeJS.ProcessEnv = { ...env };
  let used = false;
  if (blank(env.DATABASE_URL)) [filled.DATABASE_URL, used] = [stack.databaseUrl, true];
  if (blank(env.NATS_URL) && stack.natsUrl !== null) {
    [filled.NATS_URL, used] = [stack.natsUrl, true];
    if (env.NATS_NAMESPACE === undefined) filled.NATS_NAMESPACE = stack.natsNamespace;
  }
  if (blank(env.NATS_URL) && stack.natsUrl === null) used = true;
  return used ? { env: filled, stack, file } : { env, file };
}

/** Whether something accepts TCP connections on host:port within timeoutMs. */
export function probe(host: string, port: number, timeoutMs = 500): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

/**
 * For a CLI that needs the database: when the record names the embedded PostgreSQL and nothing
 * answers on its port, the reason and what to do (the launcher stops it with itself); else undefined.
 */
export async function embeddedDatabaseDown(local: LocalStackEnv): Promise<string | undefined> {
  if (!local.stack?.embeddedDatabase || local.env.DATABASE_URL !== local.stack.databaseUrl) return undefined;
  const url = new URL(local.stack.databaseUrl);
  if (await probe(url.hostname, Number(url.port || 5432))) return undefined;
  return (
    `the sandbox database is the embedded PostgreSQL that npm start runs (${local.file}), and nothing answers on ${url.host}: ` +
    'it runs only while npm start does. Start npm start, then run this again (or set DATABASE_URL).'
  );
}

/**
 * For a CLI that needs JetStream: when the record says the bus is in-process (embedded mode) and no
 * NATS_URL is set, the reason and what to do; else undefined.
 */
export function inProcessBus(local: LocalStackEnv): string | undefined {
  if (!local.stack || local.stack.natsUrl !== null || !blank(local.env.NATS_URL)) return undefined;
  return (
    `npm start runs the in-process bus (${local.file}): its messages, dead letters included, live inside that process and no other ` +
    'process can read them. Run npm start with NATS JetStream (on 127.0.0.1:4222 or NATS_URL) to use this command.'
  );
}
