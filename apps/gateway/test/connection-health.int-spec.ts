/**
 * The gateway's side of connection health: observations published on
 * `events.connection.health.<id>` (as the sync-orchestrator's collectors publish them) reach the
 * connection row through the durable consumer and show on `GET /v1/connections/{id}`, every
 * response validated against the OpenAPI document. Covers: success sets last_success_at and clears
 * the code, failure sets the code and keeps the success time, an older observation (success or
 * failure) changes nothing, extended scope writes only the extended_* fields, the datasets an
 * observation names (the directory's per-dataset status) do not narrow the connection row, and an unknown
 * connection is acknowledged without blocking later messages. The collector pipeline test
 * (system-tests/test/collector-pipeline.int-spec.ts) covers the real publisher.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { connectionHealthMsgId, type ConnectionHealthV1, EVENTS, subjectFor } from '@switchyard/messaging';
import { expectEventually } from '@switchyard/testing';
import { bearer, logLines, startTestGateway, type TestGateway } from './support.js';

let gw: TestGateway;
let connectionId: string;
let key: string;
let sequence = 0;

interface ConnectionBody {
  last_success_at?: string | null;
  last_error_code?: string | null;
  extended_last_success_at?: string | null;
  extended_last_error_code?: string | null;
  extended_next_retry_at?: string | null;
}

const at = (minute: number) => new Date(Date.UTC(2026, 0, 10, 12, minute)).toISOString();

async function publish(event: Partial<ConnectionHealthV1> & Pick<ConnectionHealthV1, 'observedAt' | 'outcome'>): Promise<ConnectionHealthV1> {
  const full: ConnectionHealthV1 = { connectionId, errorCode: null, scope: 'core', nextRetryAt: null, sequence: String(++sequence), ...event };
  await gw.bus.publish(EVENTS.connectionHealth, subjectFor(EVENTS.connectionHealth.subject, full.connectionId), full, { msgId: connectionHealthMsgId(full) });
  return full;
}

async function read(): Promise<ConnectionBody> {
  const res = await gw.call('GET', `/v1/connections/${connectionId}`, { headers: bearer(key) });
  expect(res.status).toBe(200);
  return res.body as ConnectionBody;
}

/** Polls GET /v1/connections/{id} until it shows `expected` (the consumer is asynchronous). */
async function eventually(expected: ConnectionBody): Promise<void> {
  await expectEventually(async () => expect(await read()).toMatchObject(expected), { timeoutMs: 10_000, description: JSON.stringify(expected) });
}

beforeAll(async () => {
  gw = await startTestGateway();
  connectionId = (await gw.connections.create({ customerId: 'health', provider: 'samsara', environment: 'sandbox' })).connectionId;
  const k = await gw.credentials.createConsumerKey('health reader');
  key = k.token;
  await gw.credentials.grantConsumer(k.id, connectionId, ['read']);
}, 60_000);

afterAll(async () => {
  await gw?.close();
});

describe('connection health from events.connection.health', () => {
  it('starts with every health field null', async () => {
    expect(await read()).toMatchObject({ last_success_at: null, last_error_code: null, extended_last_success_at: null, extended_last_error_code: null, extended_next_retry_at: null });
  });

  it('acknowledges an observation of an unknown connection and keeps consuming', async () => {
    await publish({ connectionId: randomUUID(), observedAt: at(1), outcome: 'failure', errorCode: 'provider_unavailable' });
    await publish({ observedAt: at(10), outcome: 'success' });
    await eventually({ last_success_at: at(10), last_error_code: null });
  });

  it('sets last_error_code on a newer failure and keeps last_success_at', async () => {
    await publish({ observedAt: at(11), outcome: 'failure', errorCode: 'provider_auth_required' });
    await eventually({ last_success_at: at(10), last_error_code: 'provider_auth_required' });
  });

  it('clears last_error_code on a newer success', async () => {
    await publish({ observedAt: at(20), outcome: 'success' });
    await eventually({ last_success_at: at(20), last_error_code: null });
  });

  it('ignores older observations: last_success_at never moves backwards and an old failure is not applied', async () => {
    const old = [await publish({ observedAt: at(15), outcome: 'success' }), await publish({ observedAt: at(19), outcome: 'failure', errorCode: 'provider_throttled' })];
    // Both were handled (logged with their sequence) and neither changed the row.
    await expectEventually(
      () => {
        const handled = logLines(gw).filter((l) => l.msg === 'connection health received' && old.some((e) => e.sequence === l.sequence));
        expect(handled.map((l) => l.applied)).toEqual([false, false]);
      },
      { timeoutMs: 10_000, description: 'old observations handled' },
    );
    expect(await read()).toMatchObject({ last_success_at: at(20), last_error_code: null });
    await publish({ observedAt: at(21), outcome: 'success', scope: 'extended' });
    await eventually({ extended_last_success_at: at(21), last_success_at: at(20) });
  });

  it('writes extended scope only to the extended_* fields, with the next retry on failure', async () => {
    await publish({ observedAt: at(22), outcome: 'failure', scope: 'extended', errorCode: 'provider_throttled', nextRetryAt: at(27) });
    await eventually({ extended_last_success_at: at(21), extended_last_error_code: 'provider_throttled', extended_next_retry_at: at(27) });
    expect(await read()).toMatchObject({ last_success_at: at(20), last_error_code: null });
    await publish({ observedAt: at(30), outcome: 'success', scope: 'extended' });
    await eventually({ extended_last_success_at: at(30), extended_last_error_code: null, extended_next_retry_at: null, last_success_at: at(20) });
  });

  it('keeps the connection fields per connection whatever datasets an observation names', async () => {
    await publish({ observedAt: at(31), outcome: 'failure', errorCode: 'provider_scope_mismatch', datasets: ['trips'] });
    await eventually({ last_success_at: at(20), last_error_code: 'provider_scope_mismatch' });
    await publish({ observedAt: at(32), outcome: 'success', datasets: [] });
    await eventually({ last_success_at: at(32), last_error_code: null });
  });

  it('logs each applied observation without failing the consumer', () => {
    expect(gw.logText()).toContain('connection health received');
    expect(gw.logText()).not.toContain('connection health consumer did not start');
  });
});
