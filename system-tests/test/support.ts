/**
 * The gateway harness (apps/gateway/test/support.ts) with the contexts the cross-app suites need
 * started beside it: `syncOrchestrator: true` runs a real sync-orchestrator (collecting from
 * `collectors.providerBaseUrls` when given, e.g. a simulator), so the sync routes work end to end;
 * `directory: true` runs a real directory, so the stored reads do; `faultFeed: true` a real fault-feed
 * (the fault reads); `telemetryIngest: true` a real telemetry-ingest (telemetry, history, usage). Each gets its own isolated schema
 * and bus connection in the gateway's NATS namespace, as the launcher runs them.
 */
import { startDirectory } from '@switchyard/directory';
import { startEnrichment } from '@switchyard/enrichment';
import { startFaultFeed } from '@switchyard/fault-feed';
import { startTestGateway as startGatewayOnly, type BesideService, type TestGateway as GatewayOnly, type TestGatewayOptions } from '@switchyard/gateway/testing';
import type { RunningService } from '@switchyard/service-kit';
import { startSyncOrchestrator } from '@switchyard/sync-orchestrator';
import { startTelemetryIngest } from '@switchyard/telemetry-ingest';

export { bearer, expectError, logLines } from '@switchyard/gateway/testing';

export interface TestGateway extends GatewayOnly {
  /** The sync-orchestrator started beside the gateway (`syncOrchestrator: true`). */
  orchestrator?: RunningService;
  /** The directory started beside the gateway (`directory: true`). */
  directory?: RunningService;
  /** The fault-feed started beside the gateway (`faultFeed: true`). */
  faultFeed?: RunningService;
  /** The telemetry-ingest context started beside the gateway (`telemetryIngest: true`). */
  telemetryIngest?: RunningService;
  /** The enrichment context started beside the gateway (`enrichment`). */
  enrichment?: RunningService;
}

/**
 * The request rate limit lifted, for suites that send thousands of requests from one key (odd
 * input, the contract fuzzer, the cross-connection generator): the per-key limit would answer most
 * of them 429 and the input would never reach its route. Its statement still runs.
 */
export const UNLIMITED_REQUEST_RATE = { perConsumerKey: { ratePerSecond: 1e9, burst: 1e9 }, perApplication: { ratePerSecond: 1e9, burst: 1e9 } } as const;

export interface StackOptions extends Omit<TestGatewayOptions, 'beside'> {
  syncOrchestrator?: boolean;
  directory?: boolean;
  faultFeed?: boolean;
  telemetryIngest?: boolean;
  /** A real enrichment context; its environment (ENRICHMENT_*) and the vendor simulator's URL. */
  enrichment?: { env?: Record<string, string>; vendorBaseUrl?: string };
  collectors?: { providerBaseUrls: Record<string, string> };
}

export async function startTestGateway({ syncOrchestrator, directory, faultFeed, telemetryIngest, enrichment, collectors, ...options }: StackOptions = {}): Promise<TestGateway> {
  const beside: BesideService[] = [];
  // With `collectors`, the orchestrator also collects (polling fast, leases long enough for a slow CI run).
  const collect = collectors ? { collectors: true, providerBaseUrls: collectors.providerBaseUrls, env: { ...process.env, POLL_MS: '100', LEASE_MS: '10000' } } : {};
  if (syncOrchestrator) beside.push({ name: 'sync-orchestrator', start: (o) => startSyncOrchestrator({ ...o, ...collect }) });
  if (directory) beside.push({ name: 'directory', start: startDirectory });
  if (faultFeed) beside.push({ name: 'fault-feed', start: startFaultFeed });
  if (telemetryIngest) beside.push({ name: 'telemetry-ingest', start: startTelemetryIngest });
  if (enrichment) beside.push({ name: 'enrichment', start: (o) => startEnrichment({ ...o, env: { ...process.env, ...enrichment.env }, ...(enrichment.vendorBaseUrl ? { vendorBaseUrl: enrichment.vendorBaseUrl } : {}) }) });
  const gw = await startGatewayOnly({ ...options, beside });
  return Object.assign(gw, { orchestrator: gw.beside['sync-orchestrator'], directory: gw.beside.directory, faultFeed: gw.beside['fault-feed'], telemetryIngest: gw.beside['telemetry-ingest'], enrichment: gw.beside.enrichment });
}
