/**
 * Retries and paging of @switchyard/sdk against a loopback server answering 429/503 with Retry-After,
 * connection resets and multi-page walks. Waits go through `retry.sleep`, which records them and
 * returns at once: the test reads the delays the client chose, never the clock.
 */
import { afterEach, describe, expect, it } from '@jest/globals';
import { createClient, SwitchyardApiError, SwitchyardConnectionError, SwitchyardTimeoutError, type ClientOptions } from '../src/index.js';
import { startLoopback, type Answer, type Loopback, type Recorded } from './loopback.js';

const servers: Loopback[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function setup(answer: (request: Recorded, index: number) => Answer, options: Partial<ClientOptions> = {}) {
  const server = await startLoopback(answer);
  servers.push(server);
  const waits: number[] = [];
  const client = createClient({
    baseUrl: server.baseUrl,
    consumerKey: 'pt_k',
    applicationSecret: 'sk_sandbox_s',
    connectionToken: 'ct_t',
    retry: {
      sleep: (ms) => {
        waits.push(ms);
        return Promise.resolve();
      },
    },
    ...options,
  });
  return { server, client, waits };
}

const page = (results: unknown[], next?: string) => ({ status: 200, body: { status: 'ok', retrieval: 'stored', results, coverage: {}, publishedAt: null, errorCode: null, ...(next ? { next } : {}) } });

describe('retries', () => {
  it('retries a read on 429 and 503, waiting at least Retry-After each time', async () => {
    // mutation: retry loop removed (maxRetries forced to 0) → this test fails (the 429 is thrown).
    // mutation: Retry-After ignored (backoff only, ≤ 500 ms first step) → this test fails (waits below 2000/1000).
    const answers: Answer[] = [
      { status: 429, headers: { 'retry-after': '2' }, body: { error: 'rate_limited' } },
      { status: 503, headers: { 'retry-after': '1' }, body: { error: 'service_unavailable' } },
      page([{ id: 'trp_1' }]),
    ];
    const { server, client, waits } = await setup((_r, i) => answers[i]!);
    const first = await client.trips.list('conn', { expand: ['vehicle', 'driver'] });
    expect(first.results).toEqual([{ id: 'trp_1' }]);
    expect(server.requests).toHaveLength(3);
    expect(server.requests.map((r) => r.url)).toEqual(Array(3).fill('/v1/connections/conn/trips?expand=vehicle,driver'));
    expect(waits).toHaveLength(2);
    expect(waits[0]).toBeGreaterThanOrEqual(2000);
    expect(waits[1]).toBeGreaterThanOrEqual(1000);
  });

  it('reads Retry-After as an HTTP date and retry-after-ms, and calls any operation by id through request()', async () => {
    const inTenSeconds = new Date(Date.now() + 10_000).toUTCString();
    const answers: Answer[] = [
      { status: 503, headers: { 'retry-after': inTenSeconds }, body: { error: 'service_unavailable' } },
      { status: 429, headers: { 'retry-after-ms': '1500', 'retry-after': '9' }, body: { error: 'rate_limited' } },
      { status: 200, body: { id: 's' } },
    ];
    const { server, client, waits } = await setup((_r, i) => answers[i]!);
    await expect(client.request('getSync', { id: 's' }, {}, undefined)).resolves.toEqual({ id: 's' });
    expect(server.requests.map((r) => `${r.method} ${r.url}`)).toEqual(Array(3).fill('GET /v1/syncs/s'));
    // An HTTP date names a second: at least 8 s of the 10 remain whatever the machine's speed.
    expect(waits[0]).toBeGreaterThanOrEqual(8_000);
    expect(waits[1]).toBeGreaterThanOrEqual(1_500);
    expect(waits[1]).toBeLessThan(9_000);
  });

  it('backs off with jitter, doubling per retry, on 408/502/504 without Retry-After', async () => {
    const answers: Answer[] = [{ status: 502 }, { status: 504 }, { status: 408, body: { error: 'request_timeout' } }, { status: 200, body: {} }];
    const { server, client, waits } = await setup((_r, i) => answers[i]!, {});
    await client.catalog.get();
    expect(server.requests).toHaveLength(4);
    // Each step lies in [step/2, step] for step = 500, 1000, 2000 ms.
    [500, 1000, 2000].forEach((step, i) => {
      expect(waits[i]).toBeGreaterThanOrEqual(step / 2);
      expect(waits[i]).toBeLessThanOrEqual(step);
    });
  });

  it('stops after maxRetries and throws the typed error of the last answer', async () => {
    const { server, client } = await setup(() => ({ status: 503, headers: { 'retry-after': '1' }, body: { error: 'service_unavailable' } }));
    const error = await client.connections.get('c').then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(server.requests).toHaveLength(4);
    expect(error).toBeInstanceOf(SwitchyardApiError);
    expect(error).toMatchObject({ status: 503, code: 'service_unavailable', retryAfter: 1, requestId: 'req-4', operationId: 'getConnection' });
  });

  it('never starts a wait that would pass the total budget', async () => {
    // mutation: budget check removed → this test fails (a 120 s wait is recorded and a second request sent).
    const { server, client, waits } = await setup(() => ({ status: 429, headers: { 'retry-after': '120' }, body: { error: 'rate_limited' } }));
    await expect(client.vehicles.telemetry('c', 'v')).rejects.toMatchObject({ status: 429, code: 'rate_limited', retryAfter: 120 });
    expect(server.requests).toHaveLength(1);
    expect(waits).toEqual([]);
  });

  it('does not retry a POST (no route honours Idempotency-Key), on 503 or on a reset', async () => {
    // mutation: the idempotency check removed (POSTs retried like GETs) → this test fails (2 requests).
    const { server, client } = await setup((_r, i) => (i === 0 ? { status: 503, headers: { 'retry-after': '1' }, body: { error: 'service_unavailable' } } : i === 1 ? 'reset' : { status: 201, body: {} }));
    await expect(client.syncs.create({ connectionToken: 'ct_t' } as never)).rejects.toMatchObject({ status: 503, code: 'service_unavailable' });
    expect(server.requests).toHaveLength(1);
    await expect(client.syncs.cancel('s')).rejects.toBeInstanceOf(SwitchyardConnectionError);
    expect(server.requests).toHaveLength(2);
  });

  it('retries a read after a connection reset', async () => {
    const { server, client, waits } = await setup((_r, i) => (i === 0 ? 'reset' : { status: 200, body: { id: 's' } }));
    await expect(client.syncs.get('s')).resolves.toEqual({ id: 's' });
    expect(server.requests).toHaveLength(2);
    expect(waits).toHaveLength(1);
  });

  it('throws a typed error with reason code, request id and detail, without retrying a 400', async () => {
    const { server, client } = await setup(() => ({ status: 400, headers: { 'switchyard-error-detail': 'in=query, name="from", reason=unencoded_plus' }, body: { error: 'invalid_query' } }));
    const error = (await client.trips.list('c').then(undefined, (e: unknown) => e)) as SwitchyardApiError;
    expect(error).toBeInstanceOf(SwitchyardApiError);
    expect({ status: error.status, code: error.code, requestId: error.requestId, detail: error.detail, retryAfter: error.retryAfter }).toEqual({
      status: 400,
      code: 'invalid_query',
      requestId: 'req-1',
      detail: 'in=query, name="from", reason=unencoded_plus',
      retryAfter: undefined,
    });
    expect(server.requests).toHaveLength(1);
  });

  it('leaves the code undefined when the body names no documented reason code', async () => {
    const { client } = await setup(() => ({ status: 404, body: { error: 'not_a_documented_code' } }));
    await expect(client.catalog.get()).rejects.toMatchObject({ status: 404, code: undefined });
  });

  it('waits with the real timer when no sleep is given (Retry-After: 0)', async () => {
    const answers: Answer[] = [{ status: 503, headers: { 'retry-after': '0' }, body: { error: 'service_unavailable' } }, { status: 200, body: {} }];
    const { server, client } = await setup((_r, i) => answers[i]!, { retry: {} });
    await client.catalog.get();
    expect(server.requests).toHaveLength(2);
  });

  it('ends an attempt at its timeout, and a call at its AbortSignal', async () => {
    const { client } = await setup(() => 'hang', { retry: false });
    await expect(client.catalog.get({ timeoutMs: 50 })).rejects.toBeInstanceOf(SwitchyardTimeoutError);
    const controller = new AbortController();
    const call = client.catalog.get({ signal: controller.signal });
    controller.abort(new Error('caller gave up'));
    await expect(call).rejects.toThrow('caller gave up');
  });
});

describe('paging', () => {
  it('walks every trip across pages with unchanged filters, retrying a 429 mid-walk', async () => {
    const pages: Record<string, Answer> = { '': page([{ id: 't1' }, { id: 't2' }], 'c1'), c1: page([{ id: 't3' }], 'c2'), c2: page([{ id: 't4' }]) };
    let limited = false;
    const { server, client, waits } = await setup((r) => {
      const cursor = new URL(r.url, 'http://x').searchParams.get('cursor') ?? '';
      if (cursor === 'c1' && !limited) {
        limited = true;
        return { status: 429, headers: { 'retry-after': '1' }, body: { error: 'rate_limited' } };
      }
      return pages[cursor]!;
    });
    const ids: string[] = [];
    for await (const trip of client.trips.list('conn', { expand: ['vehicle'], from: new Date('2026-01-01T00:00:00Z'), limit: 2 })) ids.push((trip as { id: string }).id);
    expect(ids).toEqual(['t1', 't2', 't3', 't4']);
    expect(server.requests.map((r) => r.url)).toEqual([
      '/v1/connections/conn/trips?expand=vehicle&from=2026-01-01T00%3A00%3A00.000Z&limit=2',
      '/v1/connections/conn/trips?expand=vehicle&from=2026-01-01T00%3A00%3A00.000Z&limit=2&cursor=c1',
      '/v1/connections/conn/trips?expand=vehicle&from=2026-01-01T00%3A00%3A00.000Z&limit=2&cursor=c1',
      '/v1/connections/conn/trips?expand=vehicle&from=2026-01-01T00%3A00%3A00.000Z&limit=2&cursor=c2',
    ]);
    expect(waits).toHaveLength(1);
  });

  it('gives pages one at a time, starting at a given cursor', async () => {
    const { client } = await setup((r) => (r.url.includes('cursor=c1') ? page([{ id: 't3' }]) : page([{ id: 't1' }], 'c1')));
    const walked = [];
    for await (const p of client.trips.list('conn').pages()) walked.push(p.results.length);
    expect(walked).toEqual([1, 1]);
    const resumed = await client.trips.list('conn', { cursor: 'c1' });
    expect(resumed.results).toEqual([{ id: 't3' }]);
  });

  it('ends the fault feed when hasMore is false though nextCursor stays (to resume later), and vehicles on a null nextCursor', async () => {
    const { server, client } = await setup((r) => {
      if (r.url.includes('/fault-events')) return r.url.includes('cursor=f1') ? { status: 200, body: { events: [{ n: 2 }], nextCursor: 'f2', hasMore: false } } : { status: 200, body: { events: [{ n: 1 }], nextCursor: 'f1', hasMore: true } };
      return { status: 200, body: { vehicles: [{ v: 1 }], nextCursor: null } };
    });
    const events = [];
    for await (const event of client.faults.events('conn')) events.push(event);
    expect(events).toEqual([{ n: 1 }, { n: 2 }]);
    const vehicles = [];
    for await (const vehicle of client.vehicles.list('conn')) vehicles.push(vehicle);
    expect(vehicles).toEqual([{ v: 1 }]);
    expect(server.requests).toHaveLength(3);
  });
});
