/**
 * Traces across every hop (issue 27 item 1, decision 0040), exported over OTLP to a receiver on
 * loopback (libs/testing otlp-receiver.ts) — the gateway over http/json, every other service over
 * http/protobuf, so both encodings are exercised:
 * - one `POST /v1/syncs` is ONE trace holding the gateway's HTTP span, the orchestrator's create
 *   RPC and its collector job, the provider call (Samsara simulator, status 200), the directory's
 *   consumed batch with its SQL COMMIT, and the receipt consumed back at the orchestrator — each
 *   span's parent is the span that caused it (checked hop by hop, and no span's parent is missing);
 * - one stored read (`GET …/trips`) is gateway HTTP → bus request → directory RPC → SQL;
 * - no span, attribute, event or resource holds a credential: the application secret, the
 *   Connection-Token, the consumer key (also sent in a query string to the gateway), the
 *   simulator's API token, the master key — nor any URL query string.
 * Mutations tried: the provider client giving the observer its path with the query string
 * (provider-http-client.ts `observed(url, path + search, …)`: the query kept on the provider span)
 * → "no attribute holds a query string" fails; the collector job run without its span
 * (collector.service.ts `runTraced` → `runWithCorrelation`) → the provider call and the batches
 * lose the orchestrator's job as ancestor and the hop check fails.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { ancestorsOf, OtlpReceiver, type ReceivedSpan } from '@switchyard/testing';
import { validatedCall } from './gateway-client.js';
import { PipelineStack, type PipelineConnection, type PublicSync } from './pipeline-stack.js';

let receiver: OtlpReceiver;
let stack: PipelineStack;
let connection: PipelineConnection;

beforeAll(async () => {
  receiver = await OtlpReceiver.start();
  stack = await PipelineStack.start({
    name: 'traces',
    samsaraSimulator: { SIM_VEHICLES: '1', SIM_CLOCK_FACTOR: '0' },
    logLevel: 'info',
    tracing: (service) => receiver.tracing(service === 'gateway' ? 'http/json' : 'http/protobuf'),
  });
  const { apiToken, url } = stack.samsara;
  const fleet = (await (await fetch(`${url}/fleet/vehicles`, { headers: { authorization: `Bearer ${apiToken}` } })).json()) as { data: { id: string }[] };
  connection = await stack.connect({ provider: 'samsara', credentials: { apiToken }, customerId: 'fleet-traces', config: { approvedVehicleIds: fleet.data.map((v) => v.id) } });
}, 90_000);

afterAll(async () => {
  await stack?.close();
  await receiver?.close();
});

/** Exports what every service still buffers. */
async function flushAll(): Promise<void> {
  await Promise.all(stack.services.map((s) => s.runtime.tracing?.forceFlush()));
}

const one = (spans: readonly ReceivedSpan[], what: string, match: (s: ReceivedSpan) => boolean): ReceivedSpan => {
  const found = spans.filter(match);
  expect([what, found.length > 0]).toEqual([what, true]);
  return found[0]!;
};
const byId = (spans: readonly ReceivedSpan[], id: string | undefined) => spans.find((s) => s.spanId === id);
const isAncestor = (ancestor: ReceivedSpan, span: ReceivedSpan, spans: readonly ReceivedSpan[]) => ancestorsOf(span, spans).includes(ancestor);

/**
 * The `process <pattern>` spans of `receiver` in `spans` (at least one), each the child of the
 * `publish <pattern>` span of `sender.service` that sent it (same message id), itself below one of
 * `sender.causes`.
 */
function consumedUnder(spans: readonly ReceivedSpan[], receiver: { service: string; pattern: string }, sender: { service: string; causes: readonly ReceivedSpan[] }): ReceivedSpan[] {
  const consumed = spans.filter((s) => s.service === receiver.service && s.kind === 'consumer' && s.name === `process ${receiver.pattern}`);
  expect([receiver.pattern, consumed.length > 0]).toEqual([receiver.pattern, true]);
  for (const message of consumed) {
    const publish = byId(spans, message.parentSpanId);
    expect([publish?.service, publish?.kind, publish?.name]).toEqual([sender.service, 'producer', `publish ${receiver.pattern}`]);
    expect(message.attributes['messaging.message.id']).toBe(publish!.attributes['messaging.message.id']);
    expect(sender.causes.some((cause) => isAncestor(cause, publish!, spans))).toBe(true);
  }
  return consumed;
}

describe('traces', () => {
  let syncTrace: ReceivedSpan[] = [];

  it('makes one POST /v1/syncs one trace: gateway, orchestrator, provider call, the directory commit and the receipt, each under its cause', async () => {
    const created = await connection.createSync({ lookbackDays: 1 });
    const done = await connection.settled((created as PublicSync).id, 60_000, 200);
    expect(done.status).toBe('completed');

    const isCreate = (s: ReceivedSpan) => s.service === 'gateway' && s.kind === 'server' && s.name === 'POST /v1/syncs';
    await receiver.waitFor((spans) => spans.some(isCreate), 'the gateway span of POST /v1/syncs');
    const root = receiver.spans.find(isCreate)!;
    const hasAll = (spans: readonly ReceivedSpan[]) =>
      spans.some((s) => s.service === 'sync-orchestrator' && s.name === 'process receipt.*.*') && spans.some((s) => s.service === 'directory' && s.name === 'COMMIT');
    await receiver.waitFor(() => hasAll(receiver.trace(root.traceId)), 'the receipt and the commit in the sync trace', 30_000);
    // Spans still open when the sync completed (the collector job's) end and are exported; then no
    // span of the trace may name a parent that is not in it.
    await flushAll();
    await receiver.waitFor(() => receiver.trace(root.traceId).every((s) => s === root || byId(receiver.trace(root.traceId), s.parentSpanId)), 'every parent of the trace', 20_000).catch(() => undefined);
    syncTrace = receiver.trace(root.traceId);
    const orphans = syncTrace.filter((s) => s !== root && !byId(syncTrace, s.parentSpanId)).map((s) => `${s.service}: ${s.name}`);
    expect(orphans).toEqual([]);
    expect(root.parentSpanId).toBeUndefined();
    expect(root.attributes).toMatchObject({ 'http.request.method': 'POST', 'http.route': '/v1/syncs', 'http.response.status_code': 201, 'url.path': '/v1/syncs' });
    expect(new Set(syncTrace.map((s) => s.service))).toEqual(new Set(['gateway', 'sync-orchestrator', 'directory']));

    // gateway → orchestrator: the create RPC's server span is the child of the gateway's request span.
    const request = one(syncTrace, 'gateway request sync.create', (s) => s.service === 'gateway' && s.kind === 'client' && s.name === 'request sync.create');
    expect(isAncestor(root, request, syncTrace)).toBe(true);
    const served = one(syncTrace, 'orchestrator process sync.create', (s) => s.service === 'sync-orchestrator' && s.kind === 'server' && s.name === 'process sync.create');
    expect(served.parentSpanId).toBe(request.spanId);
    expect(served.attributes).toMatchObject({ 'messaging.system': 'nats', 'messaging.operation.type': 'process', 'messaging.destination.name': 'sync.create' });
    const handled = one(syncTrace, 'orchestrator handler of sync.create', (s) => s.parentSpanId === served.spanId && s.name === 'handle sync.create');
    expect(syncTrace.some((s) => s.service === 'sync-orchestrator' && s.kind === 'client' && s.name.startsWith('INSERT ') && isAncestor(handled, s, syncTrace))).toBe(true);

    // The collector job, later, continues the trace from the sync row's stored context.
    const jobs = syncTrace.filter((s) => s.service === 'sync-orchestrator' && s.name.startsWith('collect '));
    expect(jobs.length).toBeGreaterThan(0);
    for (const job of jobs) expect(job.parentSpanId).toBe(handled.spanId);
    const call = one(syncTrace, 'a Samsara call answered 200', (s) => s.kind === 'client' && s.attributes['switchyard.provider'] === 'samsara' && s.attributes['http.response.status_code'] === 200);
    expect(call.service).toBe('sync-orchestrator');
    expect(jobs.some((job) => isAncestor(job, call, syncTrace))).toBe(true);

    // orchestrator → directory: each consumed batch is the child of the publish that sent it, within a job.
    const consumed = consumedUnder(syncTrace, { service: 'directory', pattern: 'ingest.directory.*' }, { service: 'sync-orchestrator', causes: jobs });
    for (const batch of consumed) expect(batch.attributes['messaging.consumer.group.name']).toEqual(expect.stringContaining('directory'));
    const commit = one(syncTrace, 'the directory COMMIT under a consumed batch', (s) => s.service === 'directory' && s.name === 'COMMIT' && consumed.some((b) => isAncestor(b, s, syncTrace)));
    expect(commit.attributes).toMatchObject({ 'db.system.name': 'postgresql', 'db.operation.name': 'COMMIT' });

    // directory → orchestrator: the receipt is consumed under the directory's publish of it, within a consumed batch.
    consumedUnder(syncTrace, { service: 'sync-orchestrator', pattern: 'receipt.*.*' }, { service: 'directory', causes: consumed });
  }, 120_000);

  it('makes one stored read gateway → bus request → directory → SQL', async () => {
    const res = await connection.read(`/v1/connections/${connection.connectionId}/trips?limit=5`);
    expect(res.status).toBe(200);
    const isRead = (s: ReceivedSpan) => s.service === 'gateway' && s.kind === 'server' && s.name === 'GET /v1/connections/:id/trips';
    const hasSql = () => {
      const root = receiver.spans.find(isRead);
      return root !== undefined && receiver.trace(root.traceId).some((s) => s.service === 'directory' && s.name.startsWith('SELECT '));
    };
    await receiver.waitFor(hasSql, 'the read trace down to its SQL');
    const root = receiver.spans.find(isRead)!;
    const spans = receiver.trace(root.traceId);
    const request = one(spans, 'gateway request directory.read.trips.list', (s) => s.service === 'gateway' && s.kind === 'client' && s.name === 'request directory.read.trips.list');
    expect(isAncestor(root, request, spans)).toBe(true);
    const served = one(spans, 'directory process directory.read.trips.list', (s) => s.service === 'directory' && s.kind === 'server');
    expect(served.parentSpanId).toBe(request.spanId);
    const sql = one(spans, 'a SELECT under the directory span', (s) => s.service === 'directory' && s.kind === 'client' && s.name.startsWith('SELECT ') && isAncestor(served, s, spans));
    expect(sql.attributes['db.query.text']).toEqual(expect.stringContaining('select'));
  });

  it('puts no credential and no URL query string in any span', async () => {
    // A caller's credential in a query string (refused: undeclared parameter) must not reach the span either.
    const refused = await validatedCall(stack.gatewayUrl, 'GET', `/v1/connections/${connection.connectionId}/trips?limit=1&access_token=${connection.consumerKey}`, { authorization: `Bearer ${connection.consumerKey}` });
    expect(refused.status).toBe(400);
    await receiver.waitFor((spans) => spans.some((s) => s.service === 'gateway' && s.attributes['http.response.status_code'] === 400), 'the refused read');
    await flushAll();
    const secrets = {
      applicationSecret: connection.headers.authorization!.replace(/^Bearer /, ''),
      connectionToken: connection.headers['connection-token']!,
      consumerKey: connection.consumerKey,
      simulatorToken: stack.samsara.apiToken,
      masterKey: stack.masterKey,
    };
    for (const [name, value] of Object.entries(secrets)) expect([name, value.length > 10]).toEqual([name, true]);
    const everything = receiver.spans.map((s) => JSON.stringify({ name: s.name, attributes: s.attributes, events: s.events, resource: s.resource, status: s.status }));
    for (const [name, value] of Object.entries(secrets)) expect([name, everything.filter((text) => text.includes(value))]).toEqual([name, []]);
    // A URL-like value (`url.full`, `url.path`, …) with a query: the SQL text's `?` placeholders are not URLs.
    const withQuery = receiver.spans.flatMap((s) =>
      Object.entries(s.attributes)
        .filter(([, v]) => typeof v === 'string' && /^(https?:\/\/|\/)\S*\?/.test(v))
        .map(([k, v]) => `${s.service} ${s.name} ${k}=${String(v)}`),
    );
    expect(withQuery).toEqual([]);
    expect(receiver.spans.some((s) => s.attributes['switchyard.provider'] === 'samsara')).toBe(true);
  });
});
