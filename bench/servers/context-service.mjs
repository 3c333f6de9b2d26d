/**
 * One Switchyard service as a benchmark child process (lib/child-server.mjs), chosen by the module
 * URL's `?service=` (gateway, webhook-delivery — the gateway's delivery role —, telemetry-ingest, directory, fault-feed, enrichment, sync-orchestrator): the built
 * app's own start function with its production defaults, on the fixture's isolated schema and NATS
 * namespace (lib/gateway-fixture.mjs), migrating its schema on start, with its health listener on
 * 127.0.0.1 at a free port and pino at `info` into the child's log file (the gateway's access log
 * included: it is part of its real cost). The gateway gets the fixture's key material (servers/
 * gateway.mjs is this module for the gateway, kept under its old name). The orchestrator runs its
 * collectors against `fixture.support.simulator` (Samsara), with `fixture.orchestratorEnv` on top
 * of the process environment (POLL_MS, LEASE_MS, COLLECTOR_CONCURRENCY, …).
 * Invariant: one service per process, as deployed; the bus is closed after the service.
 */
import { ALL_STREAMS, createBus } from '@switchyard/messaging';
import { serviceStartOptions } from '../lib/gateway-fixture.mjs';

const SERVICE = new URL(import.meta.url).searchParams.get('service');
const UNLIMITED_RATE = { perConsumerKey: { ratePerSecond: 1e9, burst: 1e9 }, perApplication: { ratePerSecond: 1e9, burst: 1e9 } };

async function startFor(fixture, common) {
  switch (SERVICE) {
    case 'gateway':
      // The per-key request rate limit (catalog limits.requestRate: 50/s, bursts of 200) would turn
      // a throughput run into a run of 429s: it is lifted here, while every request still takes its
      // token from the in-memory bucket and the reconciliation statement still runs every 100 ms
      // (decision 0032), so their cost stays in the figures.
      return (await import('@switchyard/gateway')).startGateway({ ...common, gatewaySettings: { masterKey: fixture.masterKey, cursorSecret: fixture.cursorSecret, requestRate: UNLIMITED_RATE } });
    case 'telemetry-ingest':
      return (await import('@switchyard/telemetry-ingest')).startTelemetryIngest(common);
    case 'directory':
      return (await import('@switchyard/directory')).startDirectory(common);
    case 'fault-feed':
      return (await import('@switchyard/fault-feed')).startFaultFeed(common);
    case 'enrichment':
      return (await import('@switchyard/enrichment')).startEnrichment(common);
    case 'webhook-delivery':
      // The gateway's delivery role (decision 0042) on the gateway schema, with the fixture's key material (it opens the endpoints' secrets).
      return (await import('@switchyard/gateway')).startWebhookDelivery({ ...common, schema: fixture.schemas.gateway, gatewaySettings: { masterKey: fixture.masterKey, cursorSecret: fixture.cursorSecret } });
    case 'sync-orchestrator':
      return (await import('@switchyard/sync-orchestrator')).startSyncOrchestrator({
        ...common,
        providerBaseUrls: { samsara: fixture.support.simulator },
        collectors: true,
        env: { ...process.env, ...fixture.orchestratorEnv },
      });
    default:
      throw new Error(`unknown service "${SERVICE}" (use ?service=gateway|webhook-delivery|telemetry-ingest|directory|fault-feed|enrichment|sync-orchestrator)`);
  }
}

export async function start(fixture) {
  const bus = await createBus({ kind: 'jetstream', servers: fixture.natsUrl, name: `bench-${SERVICE}`, namespace: fixture.namespace });
  let service;
  try {
    await bus.ensureStreams(ALL_STREAMS); // the provisioning step (decision 0033): services only verify the streams
    service = await startFor(fixture, serviceStartOptions(fixture, SERVICE, bus, 'info'));
  } catch (error) {
    await bus.close();
    throw error;
  }
  return {
    url: service.url,
    async close() {
      await service.close();
      await bus.close();
    },
  };
}
