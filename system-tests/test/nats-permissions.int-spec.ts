/**
 * The shipped NATS configuration (deploy/nats/nats-server.conf, used by docker-compose.yml and
 * deploy/k8s/nats) on a real nats-server this test starts on a free loopback port: each service's
 * user does what the service does — ensures the streams, provisions and pulls its own durable
 * consumers, publishes its events, serves its requests and gets its replies on its own inbox — and
 * is refused what it must not do: only the sync-orchestrator may ask for provider credentials and
 * only the gateway may answer; nobody reads another service's inbox, takes over another's durable,
 * deletes or purges a stream, publishes another service's events, or subscribes to `>`; wrong or
 * missing passwords do not connect. The permission table in docs/deploy.md ("NATS users") says the
 * same.
 *
 * Mutations tried: granting `gateway.>` publish to the directory user fails "only the
 * sync-orchestrator may request provider credentials"; granting `>` subscribe to the enrichment
 * user fails "nobody reads another service's inbox or everything"; dropping a durable's
 * `$JS.API.CONSUMER.CREATE.<stream>.<durable>.<filter>` line fails "<service> does what it needs";
 * granting `ingest.>` publish to the directory user fails "refuses publishing …".
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { ALL_STREAMS, CONSUMERS, createBus, resolveBinding, silentLogger, SUBJECT_PREFIXES, type MessageBus } from '@switchyard/messaging';
import { freePort, tcpProbe } from '@switchyard/testing';

const CONFIG = path.resolve(import.meta.dirname, '../../deploy/nats/nats-server.conf');
const BINARY = process.env.NATS_SERVER_BIN ?? (existsSync('/usr/sbin/nats-server') ? '/usr/sbin/nats-server' : 'nats-server');
const SERVICES = ['gateway', 'sync-orchestrator', 'directory', 'telemetry-ingest', 'fault-feed', 'enrichment'] as const;
type Service = (typeof SERVICES)[number];
const passwordVar = (s: Service) => `NATS_${s.toUpperCase().replaceAll('-', '_')}_PASSWORD`;
// Starting with a letter, as docs/deploy.md asks: the server parses `$VAR` values (`-…` or `1e5…` would not parse).
const passwords = Object.fromEntries(SERVICES.map((s) => [s, `pw${randomBytes(18).toString('hex')}`])) as Record<Service, string>;
const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** What each service consumes (its app module's durables; docs/deploy.md table) and the event subjects it publishes. */
const NEEDS: Record<Service, { durables: (keyof typeof CONSUMERS)[]; publishes: string[] }> = {
  gateway: { durables: ['gatewayConnectionHealth'], publishes: ['events.connection.config.c1', 'events.credentials.application.a1', 'dlq.events.gateway-connection-health'] },
  'sync-orchestrator': {
    durables: ['connectionConfig', 'applicationGrants', 'receipts'],
    publishes: ['ingest.directory.c1', 'ingest.telemetry.c1', 'ingest.faults.c1', 'events.connection.health.c1', 'dlq.receipts.sync-orchestrator-receipts'],
  },
  directory: {
    durables: ['connectionConfig', 'directoryConnectionHealth', 'directoryVehicleVisibility', 'directoryIngest'],
    publishes: ['receipt.s1.u1', 'events.vehicle.visibility.c1', 'events.vehicle.vin.c1', 'dlq.ingest.directory-ingest'],
  },
  'telemetry-ingest': { durables: ['connectionConfig', 'vehicleVisibility', 'telemetryFaultsObserved', 'telemetryIngest'], publishes: ['receipt.s1.u2', 'dlq.ingest.telemetry-ingest-ingest'] },
  'fault-feed': { durables: ['connectionConfig', 'vehicleVisibility', 'faultFeedIngest'], publishes: ['receipt.s1.u3', 'fleet.faults.c1.opened', 'events.faults.observed.c1', 'dlq.ingest.fault-feed-ingest'] },
  enrichment: { durables: ['connectionConfig', 'vehicleVisibility', 'enrichmentVehicleVin'], publishes: ['dlq.events.enrichment-vehicle-vin'] },
};

let server: ChildProcess;
let url: string;
let storeDir: string;
const conns = {} as Record<Service, NatsConnection>;

const login = (service: Service, password = passwords[service]) =>
  connect({ servers: url, user: service, pass: password, inboxPrefix: `_INBOX_${service}`, name: `perm-${service}`, reconnect: false });

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
  storeDir = await mkdtemp(path.join(tmpdir(), 'sy-nats-perm-'));
  const port = await freePort();
  url = `nats://127.0.0.1:${port}`;
  const env = { ...process.env, ...Object.fromEntries(SERVICES.map((s) => [passwordVar(s), passwords[s]])) };
  server = spawn(BINARY, ['-c', CONFIG, '-a', '127.0.0.1', '-p', String(port), '-sd', storeDir], { env, stdio: 'ignore' });
  for (let i = 0; ; i++) {
    if (server.exitCode !== null) throw new Error(`nats-server exited (${server.exitCode}) with ${CONFIG}`);
    try {
      await tcpProbe('127.0.0.1', port, 500);
      break;
    } catch (error) {
      if (i > 200) throw error;
      await sleep(25);
    }
  }
  for (const s of SERVICES) conns[s] = await login(s);
}, 30_000);

afterAll(async () => {
  for (const c of Object.values(conns)) await c?.close().catch(() => undefined);
  if (server && server.exitCode === null) {
    const exited = new Promise((r) => server.once('exit', r));
    server.kill('SIGTERM');
    await exited;
  }
  await rm(storeDir, { recursive: true, force: true });
});

describe('deploy/nats/nats-server.conf', () => {
  it('refuses a wrong or missing password', async () => {
    await expect(login('directory', 'wrong')).rejects.toThrow();
    await expect(connect({ servers: url, reconnect: false })).rejects.toThrow();
  });

  it.each(SERVICES)('%s does what it needs: streams, its durables (provision and pull), its events, its requests served and answered on its inbox', async (service) => {
    const bus: MessageBus = await createBus({ kind: 'jetstream', servers: url, name: `perm-bus-${service}`, namespace: '', logger: silentLogger, auth: { user: service, password: passwords[service], inboxPrefix: `_INBOX_${service}` } });
    try {
      await bus.ensureStreams(ALL_STREAMS);
      for (const key of NEEDS[service].durables) {
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
