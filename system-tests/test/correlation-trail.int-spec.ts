/**
 * One request id, followed through every hop of a sync: `POST /v1/syncs` with `x-request-id` and a
 * W3C `traceparent` → the orchestrator's create RPC → the collector that leases the units later
 * (the sync row keeps the id, migration 0012) → the provider-access request to the gateway → the
 * ingest batches on JetStream → the directory's commit → the receipts back at the orchestrator.
 * Every one of those log lines carries the request id as `correlationId` and the caller's trace id
 * as `traceId`, whichever service wrote it; and the batches stored in JetStream carry the id in
 * their `x-correlation-id` header and a traceparent of the same trace.
 * Mutations that fail it: the bus not stamping `outgoingHeaders` on publish (batches and receipts
 * lose the id), the transport not entering the message's correlation (the directory's and the
 * receipt handler's lines lose it), the collector not running the job under the sync's stored
 * correlation (the collector's lines and every batch get a `sync:<id>` one instead).
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { HEADERS, Namespace } from '@switchyard/messaging';
import { randomBytes } from 'node:crypto';
import { validatedCall } from './gateway-client.js';
import { PipelineStack, type PipelineConnection, type PublicSync } from './pipeline-stack.js';

let stack: PipelineStack;
let connection: PipelineConnection;

beforeAll(async () => {
  stack = await PipelineStack.start({ name: 'correlation-trail', samsaraSimulator: { SIM_VEHICLES: '1', SIM_CLOCK_FACTOR: '0' } });
  const { apiToken, url } = stack.samsara;
  const fleet = (await (await fetch(`${url}/fleet/vehicles`, { headers: { authorization: `Bearer ${apiToken}` } })).json()) as { data: { id: string }[] };
  connection = await stack.connect({ provider: 'samsara', credentials: { apiToken }, customerId: 'fleet-trail', config: { approvedVehicleIds: fleet.data.map((v) => v.id) } });
}, 60_000);

afterAll(() => stack?.close());

interface LogLine {
  service?: string;
  msg?: string;
  correlationId?: string;
  traceId?: string;
}

describe('correlation across the pipeline', () => {
  it('carries the x-request-id and the trace of POST /v1/syncs through collector, directory commit and receipt', async () => {
    const requestId = `trail-${randomBytes(6).toString('hex')}`;
    const traceId = randomBytes(16).toString('hex');
    const res = await validatedCall(stack.gatewayUrl, 'POST', '/v1/syncs', { ...connection.headers, 'x-request-id': requestId, traceparent: `00-${traceId}-${randomBytes(8).toString('hex')}-01` }, { lookbackDays: 1 });
    expect([res.status, res.body]).toEqual([201, expect.objectContaining({ status: 'requested' })]);
    const done = await connection.settled((res.body as PublicSync).id, 60_000, 200);
    expect(done.status).toBe('completed');

    const lines = stack.logLines.flatMap((chunk) => chunk.split('\n')).filter(Boolean).map((l) => JSON.parse(l) as LogLine);
    const traced = lines.filter((l) => l.correlationId === requestId);
    const said = (service: string, msg: string) => traced.some((l) => l.service === service && l.msg === msg);
    expect(said('gateway', 'request')).toBe(true);
    expect(said('sync-orchestrator', 'collector job published its pages')).toBe(true);
    expect(said('directory', 'ingest batch handled')).toBe(true);
    expect(traced.some((l) => l.service === 'sync-orchestrator' && (l.msg === 'unit receipt' || l.msg === 'batch receipt'))).toBe(true);
    // Everything under the request's id is in the caller's trace.
    expect(traced.every((l) => l.traceId === traceId)).toBe(true);
    // No batch of this sync was handled under another id.
    const batchLines = lines.filter((l) => l.service === 'directory' && l.msg === 'ingest batch handled' && l.correlationId?.startsWith('sync:'));
    expect(batchLines).toEqual([]);

    // The stored batches carry the id and the trace in their headers.
    const nc = await connect({ servers: stack.natsUrl });
    try {
      const stream = new Namespace(stack.namespace).stream('INGEST');
      const info = await (await jetstreamManager(nc)).streams.info(stream);
      expect(info.state.messages).toBeGreaterThan(0);
      const first = await jetstream(nc).streams.get(stream).then((s) => s.getMessage({ seq: info.state.first_seq }));
      expect(first?.header?.get(HEADERS.correlationId)).toBe(requestId);
      expect(first?.header?.get(HEADERS.traceparent)).toMatch(new RegExp(`^00-${traceId}-[0-9a-f]{16}-01$`));
    } finally {
      await nc.close();
    }
  }, 90_000);
});
