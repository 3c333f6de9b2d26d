/**
 * Finds the PostgreSQL and NATS that integration tests run against, in this order for each:
 * the environment (DATABASE_URL / NATS_URL), a server already listening on the default local port
 * (a TCP probe of 127.0.0.1:5432 / 127.0.0.1:4222), a container started by testcontainers
 * (postgres:15, `nats:2 -js`). When all fail it throws ONE error listing every step tried and
 * how to provide the services.
 *
 * Invariant: resolved once per module instance — per process, and per test file under Jest (each
 * file has its own module registry) — so concurrent callers share one resolution and at most one
 * container of each kind. Containers are removed by testcontainers' reaper when the process exits,
 * or earlier by stopTestServices().
 */
import { Socket } from 'node:net';

export interface TestServices {
  /** postgres://… of a server with trust or password auth and database `postgres`. */
  databaseUrl: string;
  /** nats://… of a server with JetStream enabled. */
  natsUrl: string;
}

/** What resolution needs from the outside world; tests substitute these. */
export interface ServiceProbes {
  env: Readonly<Record<string, string | undefined>>;
  /** Resolves when something accepts a TCP connection at host:port, rejects otherwise. */
  probe(host: string, port: number): Promise<void>;
  /** Starts a container and returns its URL and a stopper. */
  startContainer(kind: 'postgres' | 'nats'): Promise<{ url: string; stop(): Promise<void> }>;
}

/**
 * A local server answers in well under a millisecond and an absent one refuses at once, so the
 * timeout only matters on a loaded machine: a CI run once saw no answer within 500 ms while a
 * worker's event loop was busy. Three seconds, asked twice, before falling back to containers.
 */
const PROBE_TIMEOUT_MS = 3_000;
const PROBE_TRIES = 2;

/** TCP connect with a timeout, asked again once when the only failure was the timeout. */
export async function tcpProbe(host: string, port: number, timeoutMs = PROBE_TIMEOUT_MS): Promise<void> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await tcpConnectOnce(host, port, timeoutMs);
    } catch (error) {
      const timedOut = error instanceof Error && error.message.startsWith('no answer within');
      if (!timedOut || attempt >= PROBE_TRIES) throw error;
    }
  }
}

function tcpConnectOnce(host: string, port: number, timeoutMs: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const socket = new Socket();
    const done = (error?: Error) => {
      socket.destroy();
      if (error) reject(error);
      else resolve();
    };
    socket.setTimeout(timeoutMs, () => done(new Error(`no answer within ${timeoutMs} ms`)));
    socket.once('error', (error) => done(error));
    socket.connect(port, host, () => done());
  });
}

/** Starts postgres:15 or `nats:2 -js` with testcontainers (imported lazily: ~0.5 s to load). */
export async function startContainer(kind: 'postgres' | 'nats'): Promise<{ url: string; stop(): Promise<void> }> {
  const { GenericContainer, Wait } = await import('testcontainers');
  if (kind === 'postgres') {
    const container = await new GenericContainer('postgres:15')
      .withEnvironment({ POSTGRES_HOST_AUTH_METHOD: 'trust' })
      .withExposedPorts(5432)
      // The entrypoint starts a temporary server for init scripts first: wait for the second "ready".
      .withWaitStrategy(Wait.forLogMessage(/database system is ready to accept connections/, 2))
      .start();
    return {
      url: `postgres://postgres@${container.getHost()}:${container.getMappedPort(5432)}/postgres`,
      stop: async () => void (await container.stop()),
    };
  }
  const container = await new GenericContainer('nats:2').withCommand(['-js']).withExposedPorts(4222).withWaitStrategy(Wait.forLogMessage(/Server is ready/)).start();
  return { url: `nats://${container.getHost()}:${container.getMappedPort(4222)}`, stop: async () => void (await container.stop()) };
}

const message = (error: unknown) => (error instanceof Error ? error.message || error.name : String(error)).split('\n')[0];

interface Candidate {
  label: string;
  envVar: 'DATABASE_URL' | 'NATS_URL';
  port: number;
  localUrl: string;
  container: 'postgres' | 'nats';
  image: string;
}

const CANDIDATES: readonly Candidate[] = [
  { label: 'PostgreSQL', envVar: 'DATABASE_URL', port: 5432, localUrl: 'postgres://postgres@127.0.0.1:5432/postgres', container: 'postgres', image: 'postgres:15' },
  { label: 'NATS', envVar: 'NATS_URL', port: 4222, localUrl: 'nats://127.0.0.1:4222', container: 'nats', image: 'nats:2 -js' },
];

const started: { stop(): Promise<void> }[] = [];

async function resolveOne(candidate: Candidate, probes: ServiceProbes, tried: string[]): Promise<string | undefined> {
  const fromEnv = probes.env[candidate.envVar]?.trim();
  if (fromEnv) return fromEnv;
  tried.push(`${candidate.label}: ${candidate.envVar} is not set`);
  try {
    await probes.probe('127.0.0.1', candidate.port);
    return candidate.localUrl;
  } catch (error) {
    tried.push(`${candidate.label}: TCP probe of 127.0.0.1:${candidate.port} failed (${message(error)})`);
  }
  try {
    const container = await probes.startContainer(candidate.container);
    started.push(container);
    return container.url;
  } catch (error) {
    tried.push(`${candidate.label}: testcontainers could not start ${candidate.image} (${message(error)})`);
  }
  return undefined;
}

/** Resolution with explicit probes, uncached (resolveTestServices() is the cached entry point). */
export async function resolveTestServicesWith(probes: ServiceProbes): Promise<TestServices> {
  const tried: string[] = [];
  // Sequential on purpose: two containers starting at once on 2 cores only slow each other down.
  const databaseUrl = await resolveOne(CANDIDATES[0] as Candidate, probes, tried);
  const natsUrl = await resolveOne(CANDIDATES[1] as Candidate, probes, tried);
  if (databaseUrl && natsUrl) return { databaseUrl, natsUrl };
  const missing = [databaseUrl ? undefined : 'PostgreSQL', natsUrl ? undefined : 'NATS'].filter(Boolean).join(' and ');
  throw new Error(
    [
      `Integration tests need PostgreSQL 15 and NATS with JetStream; no ${missing} could be found. Tried:`,
      ...tried.map((step) => `  - ${step}`),
      'Provide them in one of these ways:',
      '  - set DATABASE_URL=postgres://user:password@host:5432/postgres and NATS_URL=nats://host:4222;',
      '  - run PostgreSQL on 127.0.0.1:5432 (user postgres, trust auth) and `nats-server -js` on 127.0.0.1:4222;',
      '  - start a Docker-compatible container runtime so testcontainers can run postgres:15 and nats:2 -js.',
    ].join('\n'),
  );
}

let memo: Promise<TestServices> | undefined;

/** `{ databaseUrl, natsUrl }` for integration tests; see the file comment for the order tried. */
export function resolveTestServices(): Promise<TestServices> {
  memo ??= resolveTestServicesWith({ env: process.env, probe: tcpProbe, startContainer });
  return memo;
}

/** Stops any containers this module started (they are also reaped at process exit). */
export async function stopTestServices(): Promise<void> {
  const stopping = started.splice(0).map((container) => container.stop());
  memo = undefined;
  await Promise.all(stopping);
}
