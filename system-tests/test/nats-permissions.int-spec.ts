/**
 * The shipped NATS configuration (deploy/nats/nats-server.conf, used by docker-compose.yml and
 * deploy/k8s/nats) on a real nats-server this test starts on a free loopback port. The provisioning
 * step (`nats-provision`, the real CLI, as the `provisioner` user) creates the streams and durables
 * of deploy/nats/streams (decision 0033); then each service's user does what the service does —
 * verifies the streams, binds to and pulls its own durable consumers, publishes its events, serves
 * its requests and gets its replies on its own inbox — and is refused what it must not do: create,
 * update, delete or purge a stream (the attacks of issue 25 item 1: cutting INGEST to one message,
 * capturing the provider-access subject into EVENTS, creating INGEST with a republish on a fresh
 * server), publish another service's events or receipts it has no business sending, ask for
 * provider credentials unless it is the sync-orchestrator, read another service's inbox, take over
 * another's durable, or subscribe to `>`; wrong or missing passwords do not connect. A service
 * whose stream differs from its definition refuses to start and names the stream and field. The
 * permission table in docs/deploy.md ("NATS users") says the same.
 *
 * Mutations tried: granting `gateway.>` publish to the directory user fails "only the
 * sync-orchestrator may request provider credentials"; granting `>` subscribe to the enrichment
 * user fails "nobody reads another service's inbox or everything"; dropping a durable's
 * `$JS.API.CONSUMER.CREATE.<stream>.<durable>.<filter>` line fails "<service> does what it needs";
 * granting `ingest.>` publish to the directory user fails "refuses publishing …"; granting
 * `$JS.API.STREAM.UPDATE.INGEST` to the enrichment user fails "no service user may create, update,
 * delete or purge a stream" (INGEST ends with one message); granting `receipt.>` to the enrichment
 * user fails "enrichment may not publish receipts"; `ensureStreams` instead of `verifyStreams` in
 * bootstrap.ts fails "a service refuses to start on a drifted stream".
 *
 * The dead-letter role's user `dead-letters` (decision 0046): the role itself (startDeadLetters, as
 * that user) serves the gateway user's list, replay and discard requests — the console's path —
 * and a replay lands in its stream; that user may publish every dead-lettering durable's subject
 * and nothing else, and is refused everything else; the gateway user may only ask, never read the
 * DLQ stream, delete from it or publish an ingest or receipt subject; no other user may ask; the
 * dlq CLI runs as that user.
 * Mutations tried: `$JS.API.STREAM.MSG.GET.DLQ` granted to the gateway user fails "the gateway user
 * may only ask"; `ingest.>` granted to the gateway user fails the same case (its ingest publish
 * succeeds); `dead-letters.>` granted to the directory user fails "no other user may ask";
 * `events.vehicle.vin.*` dropped from the dead-letters user fails "may publish … every durable's
 * subject"; `events.>` granted to it in its place fails "and no other subject".
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { startDeadLetters } from '@switchyard/gateway';
import { ALL_STREAMS, CONSUMED_BY, CONSUMERS, createBus, deadLetterSubject, EVENTS, resolveBinding, RPCS, silentLogger, streamFiles, SUBJECT_PREFIXES, subjectFor, type DeadLetterV1, type MessageBus } from '@switchyard/messaging';
import { createLogger, type RunningService } from '@switchyard/service-kit';
import { dropSchemas, freePort, isolatedSchemas, resolveTestServices, spawnNode, tcpProbe, workspaceRoot } from '@switchyard/testing';

const CONFIG = path.resolve(import.meta.dirname, '../../deploy/nats/nats-server.conf');
const BINARY = process.env.NATS_SERVER_BIN ?? (existsSync('/usr/sbin/nats-server') ? '/usr/sbin/nats-server' : 'nats-server');
const SERVICES = ['gateway', 'sync-orchestrator', 'directory', 'telemetry-ingest', 'fault-feed', 'enrichment'] as const;
type Service = (typeof SERVICES)[number];
type User = Service | 'provisioner' | 'dead-letters';
const USERS: readonly User[] = ['provisioner', ...SERVICES, 'dead-letters'];
const STREAM_NAMES = ALL_STREAMS.map((s) => s.name);
const passwordVar = (s: User) => `NATS_${s.toUpperCase().replaceAll('-', '_')}_PASSWORD`;
// Starting with a letter, as docs/deploy.md asks: the server parses `$VAR` values (`-…` or `1e5…` would not parse).
const passwords = Object.fromEntries(USERS.map((s) => [s, `pw${randomBytes(18).toString('hex')}`])) as Record<User, string>;
const PROVISION_CLI = path.join(workspaceRoot(), 'libs/service-kit/dist/cli/nats-provision.js');
const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** The event subjects each service publishes (what it consumes is CONSUMED_BY in libs/messaging; docs/deploy.md table). */
const NEEDS: Record<Service, { publishes: string[] }> = {
  gateway: {
    publishes: ['events.connection.config.c1', 'events.connection.status.c1', 'events.credentials.application.a1', 'events.webhook.disabled.a1', 'dlq.events.gateway-connection-health', 'dlq.faults.gateway-webhook-faults'],
  },
  'sync-orchestrator': {
    publishes: ['ingest.directory.c1', 'ingest.telemetry.c1', 'ingest.faults.c1', 'events.connection.health.c1', 'events.sync.outcome.c1', 'dlq.receipts.sync-orchestrator-receipts'],
  },
  directory: {
    publishes: ['receipt.s1.u1', 'events.vehicle.visibility.c1', 'events.vehicle.vin.c1', 'dlq.ingest.directory-ingest'],
  },
  'telemetry-ingest': { publishes: ['receipt.s1.u2', 'dlq.ingest.telemetry-ingest-ingest'] },
  'fault-feed': { publishes: ['receipt.s1.u3', 'fleet.faults.c1.opened', 'events.faults.observed.c1', 'dlq.ingest.fault-feed-ingest'] },
  enrichment: { publishes: ['dlq.events.enrichment-vehicle-vin'] },
};

interface Server {
  url: string;
  stop(): Promise<void>;
}
let server: Server;
let url: string;
const conns = {} as Record<Service, NatsConnection>;

/** A nats-server with the shipped configuration on a free loopback port and a fresh store. */
async function startServer(): Promise<Server> {
  const storeDir = await mkdtemp(path.join(tmpdir(), 'sy-nats-perm-'));
  const port = await freePort();
  const env = { ...process.env, ...Object.fromEntries(USERS.map((s) => [passwordVar(s), passwords[s]])) };
  const child: ChildProcess = spawn(BINARY, ['-c', CONFIG, '-a', '127.0.0.1', '-p', String(port), '-sd', storeDir], { env, stdio: 'ignore' });
  for (let i = 0; ; i++) {
    if (child.exitCode !== null) throw new Error(`nats-server exited (${child.exitCode}) with ${CONFIG}`);
    try {
      await tcpProbe('127.0.0.1', port, 500);
      break;
    } catch (error) {
      if (i > 200) throw error;
      await sleep(25);
    }
  }
  return {
    url: `nats://127.0.0.1:${port}`,
    async stop() {
      if (child.exitCode === null) {
        const exited = new Promise((r) => child.once('exit', r));
        child.kill('SIGTERM');
        await exited;
      }
      await rm(storeDir, { recursive: true, force: true });
    },
  };
}

const login = (user: User, password = passwords[user], at = url) =>
  connect({ servers: at, user, pass: password, inboxPrefix: `_INBOX_${user}`, name: `perm-${user}`, reconnect: false });

/** The provisioning step as deployed: the CLI, as the provisioner user, from deploy/nats/streams. */
async function provision(at: string): Promise<string> {
  const child = spawnNode(PROVISION_CLI, { env: { NATS_URL: at, NATS_USER: 'provisioner', NATS_PASSWORD: passwords.provisioner, NATS_INBOX_PREFIX: '_INBOX_provisioner', LOG_LEVEL: 'warn' } });
  const { code } = await child.waitForExit(30_000);
  if (code !== 0) throw new Error(`nats-provision exited ${code}:\n${child.output()}`);
  return child.stdout();
}

/** The answer to a JetStream API request, or 'refused' when the user may not send it. */
const api = (user: Service, subject: string, body: unknown, at = conns) =>
  at[user].request(subject, JSON.stringify(body), { timeout: 500 }).then(
    (m) => m.string(),
    () => 'refused',
  );

/** How many messages on `subject` the subscriber receives while `act` runs. */
async function received(subscriber: NatsConnection, subject: string, act: () => Promise<unknown>, waitMs = 300): Promise<number> {
  let count = 0;
  // A refused subscription calls back once with the permissions violation: that is no message.
  const sub = subscriber.subscribe(subject, { callback: (error) => void (error ? undefined : count++) });
  await subscriber.flush().catch(() => undefined);
  await act().catch(() => undefined);
  await sleep(waitMs);
  sub.unsubscribe();
  return count;
}

beforeAll(async () => {
  server = await startServer();
  url = server.url;
  expect(await provision(url)).toMatch(/provisioned 5 streams and \d+ durable consumers/);
  for (const s of SERVICES) conns[s] = await login(s);
}, 60_000);

afterAll(async () => {
  for (const c of Object.values(conns)) await c?.close().catch(() => undefined);
  await server?.stop();
});

describe('deploy/nats/nats-server.conf', () => {
  it('refuses a wrong or missing password', async () => {
    await expect(login('directory', 'wrong')).rejects.toThrow();
    await expect(connect({ servers: url, reconnect: false })).rejects.toThrow();
  });

  it.each(SERVICES)('%s does what it needs: streams, its durables (provision and pull), its events, its requests served and answered on its inbox', async (service) => {
    const bus: MessageBus = await createBus({ kind: 'jetstream', servers: url, name: `perm-bus-${service}`, namespace: '', logger: silentLogger, auth: { user: service, password: passwords[service], inboxPrefix: `_INBOX_${service}` } });
    try {
      await bus.verifyStreams(ALL_STREAMS);
      for (const key of CONSUMED_BY[service]) {
        const binding = resolveBinding('consumer', CONSUMERS[key].durable, service);
        if (binding?.kind !== 'consumer') throw new Error(`no durable ${key}`);
        const sub = await bus.consume(binding.consumer, async () => undefined);
        await sleep(50);
        await sub.drain();
      }
    } finally {
      await bus.close();
    }
    const js = jetstream(conns[service]);
    for (const subject of NEEDS[service].publishes) expect((await js.publish(subject, '{}', { timeout: 2_000 })).stream).toBeTruthy();
    // Serving: the gateway asks this context (the sync-orchestrator asks the gateway).
    const prefix = SUBJECT_PREFIXES[service];
    const subject = service === 'gateway' ? 'gateway.connection.provider-access' : `${prefix}.ping`;
    const caller = service === 'gateway' ? conns['sync-orchestrator'] : conns.gateway;
    const sub = conns[service].subscribe(subject, { queue: subject, callback: (_e, m) => void m.respond('pong') });
    await conns[service].flush();
    expect((await caller.request(subject, '', { timeout: 2_000 })).string()).toBe('pong');
    sub.unsubscribe();
    if (service === 'telemetry-ingest') {
      // The refresh route (decision 0019): the sync-orchestrator asks telemetry-ingest's stored read.
      const latest = conns[service].subscribe('telemetry.read.latest', { queue: 'telemetry.read.latest', callback: (_e, m) => void m.respond('pong') });
      await conns[service].flush();
      expect((await conns['sync-orchestrator'].request('telemetry.read.latest', '', { timeout: 2_000 })).string()).toBe('pong');
      latest.unsubscribe();
    }
  });

  it('only the sync-orchestrator may request provider credentials, and only the gateway may answer', async () => {
    const subject = 'gateway.connection.provider-access';
    for (const asker of ['directory', 'telemetry-ingest', 'fault-feed', 'enrichment'] as const) {
      const seen = await received(conns.gateway, subject, () => conns[asker].request(subject, '', { timeout: 300 }));
      expect([asker, seen]).toEqual([asker, 0]);
    }
    expect(await received(conns.gateway, subject, () => conns['sync-orchestrator'].request(subject, '', { timeout: 300 }))).toBe(1);
    for (const impostor of ['sync-orchestrator', 'directory', 'telemetry-ingest', 'fault-feed', 'enrichment'] as const) {
      const seen = await received(conns[impostor], subject, async () => conns['sync-orchestrator'].publish(subject, ''));
      expect([impostor, seen]).toEqual([impostor, 0]);
    }
  });

  it("nobody reads another service's inbox or everything", async () => {
    const responder = conns.directory.subscribe('directory.ping', { queue: 'directory.ping', callback: (_e, m) => void m.respond('secret reply') });
    await conns.directory.flush();
    for (const reader of ['sync-orchestrator', 'directory', 'telemetry-ingest', 'fault-feed', 'enrichment'] as const) {
      for (const pattern of ['_INBOX_gateway.>', '>', '_INBOX.>']) {
        const seen = await received(conns[reader], pattern, () => conns.gateway.request('directory.ping', '', { timeout: 1_000 }));
        expect([reader, pattern, seen]).toEqual([reader, pattern, 0]);
      }
    }
    responder.unsubscribe();
  });

  it("refuses publishing another service's events and touching streams or durables it does not own", async () => {
    const js = (s: Service) => jetstream(conns[s]);
    await expect(js('telemetry-ingest').publish('events.connection.config.c1', '{}', { timeout: 500 })).rejects.toThrow();
    await expect(js('directory').publish('ingest.directory.c1', '{}', { timeout: 500 })).rejects.toThrow();
    await expect(js('enrichment').publish('fleet.faults.c1.opened', '{}', { timeout: 500 })).rejects.toThrow();
    await expect(js('gateway').publish('receipt.s1.u1', '{}', { timeout: 500 })).rejects.toThrow();
    for (const api of ['$JS.API.STREAM.DELETE.INGEST', '$JS.API.STREAM.PURGE.EVENTS', '$JS.API.CONSUMER.DELETE.INGEST.directory-ingest', '$JS.API.STREAM.MSG.GET.INGEST']) {
      const answer = await conns.directory.request(api, '{"seq":1}', { timeout: 500 }).then(
        (m) => m.string(),
        () => 'refused',
      );
      expect([api, answer]).toEqual([api, 'refused']);
    }
    // Another service's durable: neither created nor pulled.
    const jsm = await jetstreamManager(conns.directory);
    await expect(jsm.consumers.add('INGEST', { durable_name: 'fault-feed-ingest', ack_policy: 'explicit' as never, filter_subject: 'ingest.faults.*' })).rejects.toThrow();
    // Its own durable name with another context's filter (reading telemetry batches): refused.
    await expect(jsm.consumers.add('INGEST', { durable_name: 'directory-ingest', ack_policy: 'explicit' as never, filter_subject: 'ingest.telemetry.*' })).rejects.toThrow();
    await expect(jsm.consumers.info('RECEIPTS', 'sync-orchestrator-receipts')).rejects.toThrow();
    const streams = await jetstreamManager(conns['sync-orchestrator']);
    expect((await streams.streams.info('INGEST')).config.name).toBe('INGEST');
  });
});

describe('streams are provisioned, never created or changed by a service (decision 0033, issue 25 item 1)', () => {
  it('the provisioning step created every stream and durable of deploy/nats/streams, and runs again without change', async () => {
    const nc = await login('provisioner');
    try {
      const jsm = await jetstreamManager(nc);
      for (const file of streamFiles().values()) {
        expect((await jsm.streams.info(file.stream.name)).config.max_msgs).toBe(-1);
        for (const c of file.consumers) expect((await jsm.consumers.info(file.stream.name, c.durable_name)).config.filter_subject).toBe(c.filter_subject);
      }
      // The provisioner itself may not delete, purge, publish data or read it.
      for (const subject of ['$JS.API.STREAM.DELETE.INGEST', '$JS.API.STREAM.PURGE.EVENTS', '$JS.API.CONSUMER.DELETE.INGEST.directory-ingest']) {
        const answer = await nc.request(subject, '{}', { timeout: 500 }).then((m) => m.string(), () => 'refused');
        expect([subject, answer]).toEqual([subject, 'refused']);
      }
      await expect(jetstream(nc).publish('ingest.directory.c1', '{}', { timeout: 500 })).rejects.toThrow();
    } finally {
      await nc.close();
    }
    expect(await provision(url)).toMatch(/provisioned 5 streams/);
  });

  it('no service user may create, update, delete or purge a stream: INGEST cut to one message is refused and keeps what it stores', async () => {
    const js = jetstream(conns['sync-orchestrator']);
    const jsm = await jetstreamManager(conns['sync-orchestrator']);
    const before = (await jsm.streams.info('INGEST')).state.messages;
    for (let i = 0; i < 15; i++) await js.publish(`ingest.telemetry.c${i}`, '{}', { msgID: `perm-${i}-${randomBytes(4).toString('hex')}` });
    // The attack, through the client as an attacker would use it …
    await expect((await jetstreamManager(conns.enrichment)).streams.update('INGEST', { max_msgs: 1 })).rejects.toThrow();
    // … and every stream operation of every service user, as raw API requests.
    const attempts = SERVICES.flatMap((user) =>
      STREAM_NAMES.flatMap((stream) =>
        ['CREATE', 'UPDATE', 'DELETE', 'PURGE'].map(async (op) => {
          const subject = `$JS.API.STREAM.${op}.${stream}`;
          return [user, subject, await api(user, subject, { name: stream, subjects: [`${stream.toLowerCase()}.>`], max_msgs: 1 })];
        }),
      ),
    );
    for (const [user, subject, answer] of await Promise.all(attempts)) expect([user, subject, answer]).toEqual([user, subject, 'refused']);
    const info = await jsm.streams.info('INGEST');
    expect(info.config.max_msgs).toBe(-1);
    expect(info.state.messages).toBe(before + 15);
  });

  it('EVENTS cannot be made to capture gateway.connection.provider-access: the orchestrator still gets the gateway\'s answer', async () => {
    const jsm = await jetstreamManager(conns.enrichment);
    await expect(jsm.streams.update('EVENTS', { subjects: ['events.>', 'gateway.connection.provider-access'] })).rejects.toThrow();
    expect((await jsm.streams.info('EVENTS')).config.subjects).toEqual(['events.>']);
    const subject = 'gateway.connection.provider-access';
    const sub = conns.gateway.subscribe(subject, { queue: subject, callback: (_e, m) => void m.respond('from the gateway') });
    await conns.gateway.flush();
    expect((await conns['sync-orchestrator'].request(subject, '', { timeout: 2_000 })).string()).toBe('from the gateway');
    sub.unsubscribe();
  });

  it('enrichment may not publish receipts (it ingests nothing)', async () => {
    const jsm = await jetstreamManager(conns['sync-orchestrator']);
    const before = (await jsm.streams.info('RECEIPTS')).state.messages;
    await expect(jetstream(conns.enrichment).publish('receipt.s1.u1', '{}', { timeout: 500 })).rejects.toThrow();
    conns.enrichment.publish('receipt.s1.u2', '{}');
    await conns.enrichment.flush().catch(() => undefined);
    // A context that ingests still may.
    await jetstream(conns.directory).publish('receipt.s1.u3', '{}', { timeout: 2_000 });
    expect((await jsm.streams.info('RECEIPTS')).state.messages).toBe(before + 1);
  });

  describe('on a fresh server', () => {
    let fresh: Server;
    const freshConns = {} as Record<Service, NatsConnection>;
    beforeAll(async () => {
      fresh = await startServer();
      for (const s of SERVICES) freshConns[s] = await login(s, passwords[s], fresh.url);
    }, 30_000);
    afterAll(async () => {
      for (const c of Object.values(freshConns)) await c?.close().catch(() => undefined);
      await fresh?.stop();
    });

    it('no service user may create INGEST with a republish to read every batch, and no service starts before provisioning', async () => {
      const leak = { name: 'INGEST', subjects: ['ingest.>'], republish: { src: 'ingest.>', dest: 'enrichment.leak.>' } };
      for (const user of SERVICES) expect([user, await api(user, '$JS.API.STREAM.CREATE.INGEST', leak, freshConns)]).toEqual([user, 'refused']);
      const bus = await createBus({ kind: 'jetstream', servers: fresh.url, name: 'perm-fresh', namespace: '', logger: silentLogger, auth: { user: 'enrichment', password: passwords.enrichment, inboxPrefix: '_INBOX_enrichment' } });
      try {
        await expect(bus.verifyStreams(ALL_STREAMS)).rejects.toThrow(/stream INGEST does not exist/);
      } finally {
        await bus.close();
      }
    });

    it('a service refuses to start on a drifted stream, naming the stream and the field, and starts once provisioning restored it', async () => {
      await provision(fresh.url);
      // Drift only the provisioner can make (an operator's hand edit, an older release's limits).
      const nc = await login('provisioner', passwords.provisioner, fresh.url);
      await (await jetstreamManager(nc)).streams.update('INGEST', { max_msgs: 1 });
      await nc.close();
      const { databaseUrl } = await resolveTestServices();
      const env = {
        DATABASE_URL: databaseUrl,
        DB_SCHEMA: isolatedSchemas(['directory']).directory,
        NATS_URL: fresh.url,
        NATS_USER: 'directory',
        NATS_PASSWORD: passwords.directory,
        NATS_INBOX_PREFIX: '_INBOX_directory',
        HEALTH_PORT: '0',
        HOST: '127.0.0.1',
        MIGRATE_ON_START: 'false',
      };
      const child = spawnNode(path.join(workspaceRoot(), 'apps/directory/dist/main.js'), { env });
      const { code } = await child.waitForExit(60_000);
      expect(code).toBe(1);
      expect(child.output()).toMatch(/stream INGEST differs from its definition \(deploy\/nats\/streams\): max_msgs is 1, expected -1/);
      expect(child.output()).toMatch(/run the provisioning step/);
      // Provisioning sets it back; the service's check passes.
      await provision(fresh.url);
      const bus = await createBus({ kind: 'jetstream', servers: fresh.url, name: 'perm-fresh-directory', namespace: '', logger: silentLogger, auth: { user: 'directory', password: passwords.directory, inboxPrefix: '_INBOX_directory' } });
      try {
        await bus.verifyStreams(ALL_STREAMS);
      } finally {
        await bus.close();
      }
    }, 90_000);
  });
});

describe('the dead-letter role (decision 0046): its user does exactly the dead-letter operations, the gateway may only ask', () => {
  const schema = isolatedSchemas(['gateway']).gateway;
  let databaseUrl: string;
  let roleBus: MessageBus;
  let gatewayBus: MessageBus;
  let role: RunningService;
  let dlqConn: NatsConnection;
  const roleLog: string[] = [];
  const operator = { id: 'op-perm', name: 'permission test' };

  beforeAll(async () => {
    ({ databaseUrl } = await resolveTestServices());
    const sink = new PassThrough();
    sink.on('data', (chunk: Buffer) => roleLog.push(chunk.toString('utf8')));
    const logger = createLogger({ service: 'gateway', role: 'dead-letters', level: 'info', destination: sink });
    // As main-runner connects it: the bus logs into the role's log (a refused API call would show there).
    roleBus = await createBus({ kind: 'jetstream', servers: url, name: 'perm-dead-letters-role', namespace: '', logger, auth: { user: 'dead-letters', password: passwords['dead-letters'], inboxPrefix: '_INBOX_dead-letters' } });
    // The role's handlers touch no table: it serves before (without) the gateway's migrations.
    role = await startDeadLetters({ databaseUrl, schema, allServiceSchemas: [schema], bus: roleBus, environment: 'production', migrateOnStart: false, tracing: null, logger });
    gatewayBus = await createBus({ kind: 'jetstream', servers: url, name: 'perm-dead-letters-console', namespace: '', logger: silentLogger, auth: { user: 'gateway', password: passwords.gateway, inboxPrefix: '_INBOX_gateway' } });
    dlqConn = await login('dead-letters');
  }, 60_000);

  afterAll(async () => {
    await role?.close();
    for (const b of [roleBus, gatewayBus]) await b?.close().catch(() => undefined);
    await dlqConn?.close().catch(() => undefined);
    await dropSchemas(databaseUrl, [schema]).catch(() => undefined);
  });

  /** A dead letter of the gateway's health durable, written by the gateway user as its consumer would. */
  async function deadLetter(tag: string): Promise<void> {
    const envelope: DeadLetterV1 = {
      originalSubject: subjectFor(EVENTS.connectionHealth.subject, `c-${tag}`),
      stream: 'EVENTS',
      consumer: CONSUMERS.gatewayConnectionHealth.durable,
      streamSequence: 1,
      // A reason of this case's own: the earlier cases' durables dead-lettered their test messages too.
      reason: 'permission_test',
      deliveryCount: 10,
      failedAt: new Date().toISOString(),
      payloadEncoding: 'utf8',
      payload: JSON.stringify({ tag }),
    };
    await gatewayBus.publish(EVENTS.deadLetter, deadLetterSubject('EVENTS', CONSUMERS.gatewayConnectionHealth.durable), envelope, { msgId: `perm-dl-${tag}-${randomBytes(4).toString('hex')}` });
  }

  it("serves the gateway user's list, replay and discard as the dead-letters user: the console's path on the shipped configuration", async () => {
    const events = await jetstreamManager(conns['sync-orchestrator']);
    const before = (await events.streams.info('EVENTS')).state.messages;
    await deadLetter('replay-me');
    await deadLetter('discard-me');
    const listed = (await gatewayBus.request(RPCS.deadLetters.list, { reason: 'permission_test', limit: 10 }, { timeoutMs: 5_000 })).deadLetters;
    expect(listed.map((l) => l.envelope.originalSubject)).toEqual(['events.connection.health.c-replay-me', 'events.connection.health.c-discard-me']);
    expect(listed[0]).not.toHaveProperty('envelope.payload');
    expect(listed[0]?.payloadBytes).toBe(JSON.stringify({ tag: 'replay-me' }).length);
    const [replayed, discarded] = [listed[0]!.seq, listed[1]!.seq];
    expect(await gatewayBus.request(RPCS.deadLetters.replay, { seq: replayed, operator }, { timeoutMs: 5_000 })).toEqual({ seq: replayed, outcome: 'replayed', subject: 'events.connection.health.c-replay-me' });
    expect(await gatewayBus.request(RPCS.deadLetters.discard, { seq: discarded, operator }, { timeoutMs: 5_000 })).toEqual({ seq: discarded, outcome: 'discarded', subject: 'events.connection.health.c-discard-me' });
    expect(await gatewayBus.request(RPCS.deadLetters.replay, { seq: replayed, operator }, { timeoutMs: 5_000 })).toEqual({ seq: replayed, outcome: 'not_found' });
    expect((await gatewayBus.request(RPCS.deadLetters.list, { reason: 'permission_test', limit: 10 }, { timeoutMs: 5_000 })).deadLetters).toEqual([]);
    // The replay is in EVENTS (published by the role), the discarded one is not.
    expect((await events.streams.info('EVENTS')).state.messages).toBe(before + 1);
    // The audit trail: one line per change, naming the operator, never the payload.
    const audit = roleLog.filter((l) => /"msg":"dead letter (replay|discard)"/.test(l)).map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(audit.map((l) => [l.msg, l.seq, l.outcome, l.operatorId, l.role])).toEqual([
      ['dead letter replay', replayed, 'replayed', 'op-perm', 'dead-letters'],
      ['dead letter discard', discarded, 'discarded', 'op-perm', 'dead-letters'],
      ['dead letter replay', replayed, 'not_found', 'op-perm', 'dead-letters'],
    ]);
    expect(roleLog.join('')).not.toContain('replay-me"}');
    expect(roleLog.join('')).not.toMatch(/Permissions Violation|"level":(50|"error")/);
  });

  it('the gateway user may only ask: it never reads the DLQ stream, deletes from it, nor publishes an ingest or receipt subject', async () => {
    await deadLetter('gateway-cannot-read');
    const attempts = ['$JS.API.STREAM.MSG.GET.DLQ', '$JS.API.STREAM.MSG.DELETE.DLQ', '$JS.API.CONSUMER.CREATE.DLQ', '$JS.API.CONSUMER.CREATE.DLQ.peek', '$JS.API.STREAM.PURGE.DLQ'];
    for (const subject of attempts) expect([subject, await api('gateway', subject, { seq: 1, stream_name: 'DLQ', config: { ack_policy: 'none', deliver_policy: 'all' } })]).toEqual([subject, 'refused']);
    for (const subject of ['ingest.directory.c1', 'ingest.telemetry.c1', 'ingest.faults.c1', 'receipt.s1.u1', 'events.connection.health.c1', 'events.vehicle.vin.c1']) {
      await expect(jetstream(conns.gateway).publish(subject, '{}', { timeout: 500 })).rejects.toThrow();
    }
    // What it may do: ask the role (the previous case ran the three requests).
    expect((await gatewayBus.request(RPCS.deadLetters.list, { reason: 'permission_test', limit: 10 }, { timeoutMs: 5_000 })).deadLetters).toHaveLength(1);
  });

  it('runs `npm run dlq` as the dead-letters user: list and inspect on its own connection', async () => {
    const cli = (...args: string[]) => spawnNode(path.join(workspaceRoot(), 'apps/gateway/dist/cli/dlq.js'), { args, env: { NATS_URL: url, NATS_USER: 'dead-letters', NATS_PASSWORD: passwords['dead-letters'], NATS_INBOX_PREFIX: '_INBOX_dead-letters', LOG_LEVEL: 'warn' } });
    await deadLetter('cli');
    const list = cli('list', '--subject', 'events.connection.health.c-cli');
    expect([(await list.waitForExit(30_000)).code, list.output()]).toEqual([0, expect.stringContaining('"originalSubject":"events.connection.health.c-cli"')]);
    // Its walk's ephemeral consumer is deleted (its one CONSUMER.DELETE right): no permission error logged.
    expect(list.output()).not.toMatch(/Permissions Violation|"level":"error"/);
    const [listed] = list.stdout().trim().split('\n').map((l) => JSON.parse(l) as { seq: number });
    const inspect = cli('inspect', '--seq', String(listed?.seq));
    expect([(await inspect.waitForExit(30_000)).code, inspect.output()]).toEqual([0, expect.stringContaining('{\\"tag\\":\\"cli\\"}')]);
  });

  it('no other user may ask the dead-letter role', async () => {
    for (const asker of ['sync-orchestrator', 'directory', 'telemetry-ingest', 'fault-feed', 'enrichment'] as const) {
      for (const subject of Object.values(RPCS.deadLetters).map((r) => r.subject)) {
        const seen = await received(dlqConn, subject, () => conns[asker].request(subject, JSON.stringify({ seq: 1, operator }), { timeout: 300 }), 100);
        expect([asker, subject, seen]).toEqual([asker, subject, 0]);
      }
    }
  });

  it("may publish (replay to) every dead-lettering durable's subject, and no other subject", async () => {
    const js = jetstream(dlqConn);
    const durableSubjects = [...new Set(Object.values(CONSUMERS).map((c) => c.event.subject))].sort();
    for (const pattern of durableSubjects) {
      const subject = pattern.replaceAll('*', 'perm');
      expect([subject, (await js.publish(subject, '{}', { timeout: 2_000, msgID: `perm-replay-${subject}-${randomBytes(4).toString('hex')}` })).stream]).toEqual([subject, expect.any(String)]);
    }
    // The file grants exactly those data subjects: a new durable's subject must be added there (and here nothing else is).
    const conf = readFileSync(CONFIG, 'utf8');
    const block = conf.slice(conf.indexOf('user: dead-letters'));
    const allow = block.slice(block.indexOf('allow: ['), block.indexOf(']')).match(/"[^"]+"/g)?.map((q) => q.slice(1, -1)) ?? [];
    expect(allow.filter((a) => !a.startsWith('$JS.')).sort()).toEqual(durableSubjects);
    for (const subject of ['events.webhook.disabled.a1', 'dlq.events.gateway-connection-health', 'gateway.connection.provider-access', 'sync.list', 'directory.read.vehicles.list', 'fleet.faults.c1']) {
      await expect(js.publish(subject, '{}', { timeout: 500 })).rejects.toThrow();
    }
  });

  it('is refused everything else: streams changed, durables deleted, other subscriptions or requests', async () => {
    for (const subject of ['$JS.API.STREAM.PURGE.DLQ', '$JS.API.STREAM.DELETE.DLQ', '$JS.API.STREAM.UPDATE.DLQ', '$JS.API.STREAM.MSG.GET.INGEST', '$JS.API.STREAM.MSG.DELETE.EVENTS', '$JS.API.CONSUMER.DELETE.INGEST.directory-ingest', '$JS.API.CONSUMER.CREATE.INGEST.peek', '$JS.API.CONSUMER.MSG.NEXT.INGEST.directory-ingest']) {
      const answer = await dlqConn.request(subject, '{"seq":1}', { timeout: 500 }).then((m) => m.string(), () => 'refused');
      expect([subject, answer]).toEqual([subject, 'refused']);
    }
    // Traffic on each pattern while it tries to listen: a request to the gateway, one to the
    // orchestrator, and a reply to the gateway's inbox.
    const responder = conns.directory.subscribe('directory.ping', { queue: 'directory.ping', callback: (_e, m) => void m.respond('secret reply') });
    await conns.directory.flush();
    const traffic = async () => {
      conns['sync-orchestrator'].publish('gateway.connection.provider-access', '');
      conns.gateway.publish('sync.list', '');
      await conns.gateway.request('directory.ping', '', { timeout: 1_000 });
    };
    for (const pattern of ['gateway.>', 'sync.>', '_INBOX_gateway.>', '>']) {
      const seen = await received(dlqConn, pattern, traffic, 100);
      expect([pattern, seen]).toEqual([pattern, 0]);
    }
    responder.unsubscribe();
  });
});
