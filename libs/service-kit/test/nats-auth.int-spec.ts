/**
 * A service's bus against NATS servers that require authentication: each test starts its own
 * `nats-server` on a free loopback port (user/password, token, mutual TLS with a throw-away CA)
 * and stops it afterwards, so the shared server on 4222 is never touched. The bus is built the way
 * main.ts builds it: NATS_* variables → natsEnvSchema → natsAuth → createBus. Invariant checked:
 * right credentials connect, wrong ones fail at once with `authorization_error`, and no log line
 * or error carries a secret.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, connect as tcpConnect } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { BusUnavailableError, createBus, type BusLogger, type MessageBus } from '@switchyard/messaging';
import { loadConfig, natsAuth, natsEnvSchema } from '../src/config.js';

const NATS_SERVER = '/usr/sbin/nats-server';
const PASSWORD = 'pw-secret-4711';
const TOKEN = 'tok-secret-0815';

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

const accepts = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = tcpConnect({ host: '127.0.0.1', port });
    socket.once('connect', () => (socket.destroy(), resolve(true)));
    socket.once('error', () => (socket.destroy(), resolve(false)));
  });

interface NatsServer {
  port: number;
  stop(): Promise<void>;
}

const workDir = mkdtempSync(path.join(tmpdir(), 'nats-auth-'));

async function startNats(args: string[], port?: number): Promise<NatsServer> {
  const p = port ?? (await freePort());
  const child: ChildProcess = spawn(NATS_SERVER, ['-js', '-a', '127.0.0.1', '-p', String(p), '-sd', mkdtempSync(path.join(workDir, 'js-')), ...args], { stdio: 'ignore' });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  for (let i = 0; !(await accepts(p)); i++) {
    if (i > 200 || child.exitCode !== null) throw new Error(`nats-server on ${p} did not start`);
    await sleep(25);
  }
  return {
    port: p,
    stop: async () => {
      if (child.exitCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}

function capturingLogger(): BusLogger & { lines: string[] } {
  const lines: string[] = [];
  const write = (obj: object, msg: string) => void lines.push(JSON.stringify({ ...obj, msg }));
  return { lines, info: write, warn: write, error: write };
}

/** The bus main.ts would build from `env` (waiting for NATS, as runMain does). */
function busFromEnv(env: NodeJS.ProcessEnv, logger: BusLogger = capturingLogger()): Promise<MessageBus> {
  const parsed = loadConfig(natsEnvSchema, env);
  return createBus({ kind: 'jetstream', servers: parsed.NATS_URL, name: 'nats-auth-test', namespace: 'natsauth', logger, waitOnFirstConnect: true, auth: natsAuth(parsed) });
}

async function connectsAndCloses(env: NodeJS.ProcessEnv): Promise<void> {
  const bus = await busFromEnv(env);
  expect(bus.isHealthy()).toBe(true);
  await bus.close();
}

async function refusal(env: NodeJS.ProcessEnv): Promise<BusUnavailableError> {
  const started = Date.now();
  const error = await busFromEnv(env).then(
    async (bus) => {
      await bus.close();
      throw new Error('connected with wrong credentials');
    },
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(BusUnavailableError);
  // Not retried: waitOnFirstConnect retries only an unreachable server.
  expect(Date.now() - started).toBeLessThan(5_000);
  return error as BusUnavailableError;
}

afterAll(() => rmSync(workDir, { recursive: true, force: true }));

describe('NATS with user and password', () => {
  let nats: NatsServer;
  beforeAll(async () => {
    nats = await startNats(['--user', 'svc', '--pass', PASSWORD]);
  });
  afterAll(() => nats.stop());

  it('connects with NATS_USER and NATS_PASSWORD', async () => {
    await connectsAndCloses({ NATS_URL: `nats://127.0.0.1:${nats.port}`, NATS_USER: 'svc', NATS_PASSWORD: PASSWORD });
  });

  it('connects with the credentials written into NATS_URL, which the v3 client alone ignores', async () => {
    await connectsAndCloses({ NATS_URL: `nats://svc:${PASSWORD}@127.0.0.1:${nats.port}` });
  });

  it('fails at once and clearly with a wrong password or none, naming the server without secrets', async () => {
    const wrong = await refusal({ NATS_URL: `nats://127.0.0.1:${nats.port}`, NATS_USER: 'svc', NATS_PASSWORD: 'not-it' });
    expect(wrong.reason).toBe('authorization_error');
    expect(wrong.message).toBe(`nats://127.0.0.1:${nats.port}: authorization_error`);
    expect((await refusal({ NATS_URL: `nats://127.0.0.1:${nats.port}` })).reason).toBe('authorization_error');
    const inUrl = await refusal({ NATS_URL: `nats://svc:wrong-${PASSWORD}@127.0.0.1:${nats.port}` });
    expect(inUrl.message).not.toContain(PASSWORD);
  });
});

describe('NATS with a token', () => {
  let nats: NatsServer;
  beforeAll(async () => {
    nats = await startNats(['--auth', TOKEN]);
  });
  afterAll(() => nats.stop());

  it('connects with NATS_TOKEN and refuses a wrong one', async () => {
    await connectsAndCloses({ NATS_URL: `nats://127.0.0.1:${nats.port}`, NATS_TOKEN: TOKEN });
    expect((await refusal({ NATS_URL: `nats://127.0.0.1:${nats.port}`, NATS_TOKEN: 'tok-wrong' })).reason).toBe('authorization_error');
  });
});

describe('NATS with mutual TLS', () => {
  const files = (name: string) => path.join(workDir, name);
  let nats: NatsServer;
  beforeAll(async () => {
    const openssl = (...args: string[]) => {
      const run = spawnSync('openssl', args, { cwd: workDir, encoding: 'utf8' });
      if (run.status !== 0) throw new Error(`openssl ${args[0]}: ${run.stderr}`);
    };
    openssl('req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', '/CN=switchyard-test-ca', '-keyout', 'ca.key', '-out', 'ca.pem');
    writeFileSync(files('server.ext'), 'subjectAltName=IP:127.0.0.1,DNS:localhost\n');
    for (const who of ['server', 'client']) {
      openssl('req', '-newkey', 'rsa:2048', '-nodes', '-subj', `/CN=${who}`, '-keyout', `${who}.key`, '-out', `${who}.csr`);
      openssl('x509', '-req', '-in', `${who}.csr`, '-CA', 'ca.pem', '-CAkey', 'ca.key', '-CAcreateserial', '-days', '1', '-out', `${who}.pem`, ...(who === 'server' ? ['-extfile', 'server.ext'] : []));
    }
    nats = await startNats(['--tls', '--tlscert', files('server.pem'), '--tlskey', files('server.key'), '--tlsverify', '--tlscacert', files('ca.pem')]);
  });
  afterAll(() => nats?.stop());

  it('connects with NATS_TLS_CA_FILE, NATS_TLS_CERT_FILE and NATS_TLS_KEY_FILE', async () => {
    await connectsAndCloses({
      NATS_URL: `tls://127.0.0.1:${nats.port}`,
      NATS_TLS_CA_FILE: files('ca.pem'),
      NATS_TLS_CERT_FILE: files('client.pem'),
      NATS_TLS_KEY_FILE: files('client.key'),
      NATS_INBOX_PREFIX: 'switchyard.test.inbox',
    });
  });

  it('fails at once with tls_error when the server certificate is not trusted (no NATS_TLS_CA_FILE)', async () => {
    const error = await refusal({ NATS_URL: `tls://127.0.0.1:${nats.port}`, NATS_TLS_CERT_FILE: files('client.pem'), NATS_TLS_KEY_FILE: files('client.key') });
    expect(error.reason).toBe('tls_error');
  });
});

describe('NATS not reachable yet at start', () => {
  it('logs "waiting for NATS at <url without credentials>" with backoff, then connects once the server is up', async () => {
    const port = await freePort();
    const logger = capturingLogger();
    const pending = busFromEnv({ NATS_URL: `nats://svc:${PASSWORD}@127.0.0.1:${port}` }, logger);
    while (logger.lines.filter((l) => l.includes(`"waiting for NATS at nats://127.0.0.1:${port}"`)).length < 2) await sleep(25);
    const nats = await startNats(['--user', 'svc', '--pass', PASSWORD], port);
    try {
      const bus = await pending;
      expect(bus.isHealthy()).toBe(true);
      await bus.close();
      const waits = logger.lines.filter((l) => l.includes('waiting for NATS')).map((l) => JSON.parse(l) as { retryInMs: number });
      expect(waits[1]?.retryInMs).toBeGreaterThan(waits[0]?.retryInMs ?? Infinity);
      expect(logger.lines.join('\n')).not.toContain(PASSWORD);
    } finally {
      await nats.stop();
    }
  }, 20_000);
});
