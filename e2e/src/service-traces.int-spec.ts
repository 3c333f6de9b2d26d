/**
 * Traces from a service as deployed: the built `apps/directory/dist/main.js` in its own process
 * (plain Node 24 ESM, no jest transform — the import of `@fastify/otel` and the OTLP exporters as
 * an image runs them), configured only by the OTEL_* variables (decision 0040). A NATS request to
 * its ping with a caller's `traceparent` comes back as spans on a loopback OTLP receiver: the
 * served request under the caller's span and the handler under it, in the resource named by
 * OTEL_SERVICE_NAME with OTEL_RESOURCE_ATTRIBUTES. The in-process suites (system-tests
 * traces.int-spec.ts) cover what a trace holds; this one covers the entry point.
 * Mutation tried: main-runner passing `tracing: null` (the parsed OTEL_* ignored) → no span
 * arrives and the wait fails.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { connect, headers as natsHeaders } from '@nats-io/transport-node';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import {
  createTestDatabase,
  deleteNamespaceStreams,
  OtlpReceiver,
  resolveTestServices,
  serviceStarted,
  spawnNode,
  spawnService,
  uniqueSuffix,
  workspaceRoot,
  type NodeProcess,
  type TestDatabase,
} from '@switchyard/testing';

const PROVISION_CLI = path.join(workspaceRoot(), 'libs/service-kit/dist/cli/nats-provision.js');

let receiver: OtlpReceiver;
let database: TestDatabase | undefined;
let natsUrl = '';
let directory: NodeProcess | undefined;
const namespace = `e2etraces${uniqueSuffix()}`;

beforeAll(async () => {
  receiver = await OtlpReceiver.start();
  const services = await resolveTestServices();
  natsUrl = services.natsUrl;
  database = await createTestDatabase(services.databaseUrl, 'sy_e2e');
  // The provisioning step (decision 0033): the service only verifies its streams.
  const provision = spawnNode(PROVISION_CLI, { env: { NATS_URL: natsUrl, NATS_NAMESPACE: namespace } });
  expect(await provision.waitForExit(60_000)).toEqual({ code: 0, signal: null });
  directory = spawnService('directory', {
    DATABASE_URL: database.url,
    NATS_URL: natsUrl,
    NATS_NAMESPACE: namespace,
    HEALTH_PORT: '0',
    OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
    OTEL_SERVICE_NAME: 'directory-e2e',
    OTEL_RESOURCE_ATTRIBUTES: 'deployment.environment.name=e2e',
    OTEL_BSP_SCHEDULE_DELAY: '100',
  });
  await serviceStarted('directory', directory, 120_000);
}, 180_000);

afterAll(async () => {
  await directory?.kill();
  await receiver?.close();
  await database?.drop();
  if (natsUrl) await deleteNamespaceStreams(natsUrl, namespace);
});

describe('a service main.ts with OTEL_* set', () => {
  it('exports the spans of a request it serves, under the caller’s traceparent and OTEL_SERVICE_NAME', async () => {
    const traceId = randomBytes(16).toString('hex');
    const callerSpan = randomBytes(8).toString('hex');
    const nc = await connect({ servers: natsUrl });
    try {
      const h = natsHeaders();
      h.set('traceparent', `00-${traceId}-${callerSpan}-01`);
      const reply = await nc.request(`${namespace}.directory.ping`, new TextEncoder().encode('{}'), { timeout: 10_000, headers: h });
      expect(JSON.parse(new TextDecoder().decode(reply.data))).toMatchObject({ service: 'directory', ready: true });
    } finally {
      await nc.close();
    }
    await receiver.waitFor((spans) => spans.filter((s) => s.traceId === traceId).length >= 2, 'the ping spans', 30_000);
    const spans = receiver.trace(traceId);
    const served = spans.find((s) => s.name === 'process directory.ping');
    expect(served).toMatchObject({ kind: 'server', parentSpanId: callerSpan, service: 'directory-e2e', resource: { 'service.namespace': 'switchyard', 'deployment.environment.name': 'e2e' } });
    expect(spans.find((s) => s.name === 'handle directory.ping')?.parentSpanId).toBe(served?.spanId);
    // Default protocol: http/protobuf.
    expect(receiver.contentTypes).toContain('application/x-protobuf');
  }, 60_000);
});
