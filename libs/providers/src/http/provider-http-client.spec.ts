import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ProviderError } from '../errors.js';
import { ProviderHttpClient } from './provider-http-client.js';
import type { Clock, RequestBudget } from './request-budget.js';
import { TokenBucketBudget } from './request-budget.js';
import { parseRetryAfter } from './retry-after.js';

/** Scripted responses per path: each request takes the next entry. */
const script = new Map<string, { status: number; body?: string; headers?: Record<string, string>; delayMs?: number }[]>();
const seen: { path: string; auth?: string }[] = [];
let server: Server;
let baseUrl: string;

beforeAll(async () => {
  server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    seen.push({ path, auth: req.headers.authorization });
    const next = script.get(path)?.shift() ?? { status: 404, body: '{"message":"not found"}' };
    setTimeout(() => {
      res.writeHead(next.status, { 'content-type': 'application/json', ...next.headers });
      res.end(next.body ?? '{}');
    }, next.delayMs ?? 0);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

/** A clock whose sleeps return at once and are recorded. */
function fakeClock(): Clock & { sleeps: number[] } {
  let now = 1_700_000_000_000;
  const sleeps: number[] = [];
  return { sleeps, now: () => now, sleep: async (ms) => void (sleeps.push(ms), (now += ms)) };
}

describe('ProviderHttpClient', () => {
  it('sends auth headers and returns parsed JSON', async () => {
    script.set('/ok', [{ status: 200, body: '{"data":[1]}' }]);
    const client = new ProviderHttpClient({ baseUrl, headers: () => ({ authorization: 'Bearer t' }) });
    const res = await client.request({ path: '/ok' });
    expect(res.json).toEqual({ data: [1] });
    expect(seen.at(-1)).toEqual({ path: '/ok', auth: 'Bearer t' });
  });

  it('honours a fractional Retry-After on 429 even when backoff would be shorter', async () => {
    script.set('/throttled', [{ status: 429, headers: { 'retry-after': '0.40235' } }, { status: 429, headers: { 'retry-after': '2' } }, { status: 200, body: '[]' }]);
    const clock = fakeClock();
    const client = new ProviderHttpClient({ baseUrl, clock, random: () => 0 });
    const res = await client.request({ path: '/throttled' });
    expect(res.attempts).toBe(3);
    expect(clock.sleeps).toEqual([403, 2000]);
  });

  it('backs off with full jitter on 5xx and gives up as provider_unavailable', async () => {
    script.set('/down', Array.from({ length: 3 }, () => ({ status: 503 })));
    const clock = fakeClock();
    const client = new ProviderHttpClient({ baseUrl, clock, random: () => 0.5, retry: { maxAttempts: 3, baseDelayMs: 100 } });
    await expect(client.request({ path: '/down' })).rejects.toMatchObject({ code: 'provider_unavailable' });
    expect(clock.sleeps).toEqual([50, 100]);
  });

  it.each([
    [401, 'provider_auth_required'],
    [403, 'provider_scope_mismatch'],
    [400, 'provider_config_invalid'],
  ])('does not retry %i and maps it to %s', async (status, code) => {
    script.set('/final', [{ status }, { status: 200 }]);
    const client = new ProviderHttpClient({ baseUrl, clock: fakeClock() });
    const error = await client.request({ path: '/final' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProviderError);
    expect((error as ProviderError).code).toBe(code);
    script.delete('/final');
  });

  it('maps a truncated JSON body to provider_response_changed', async () => {
    script.set('/truncated', [{ status: 200, body: '{"data":[{"id":"1"' }]);
    const client = new ProviderHttpClient({ baseUrl });
    await expect(client.request({ path: '/truncated' })).rejects.toMatchObject({ code: 'provider_response_changed' });
  });

  it('times out a hanging response and retries it', async () => {
    script.set('/slow', [{ status: 200, delayMs: 500 }, { status: 200, body: '{"ok":true}' }]);
    const client = new ProviderHttpClient({ baseUrl, timeoutMs: 100, clock: fakeClock() });
    const res = await client.request({ path: '/slow' });
    expect(res).toMatchObject({ json: { ok: true }, attempts: 2 });
  });

  // Mutation tried: the client's `this.budget.pauseUntil(...)` removed — the second client is sent
  // at once (0 ms after the 429 instead of 3,000) and this fails. (The retrying path's pause is
  // asserted by the next test, through a recording budget.)
  it('a 429 pauses every caller sharing the budget: a second client sends only after Retry-After, even when the first gave up', async () => {
    const clock = fakeClock();
    const budget = new TokenBucketBudget(1000, 1000, clock);
    script.set('/shared-a', [{ status: 429, headers: { 'retry-after': '3' } }]);
    script.set('/shared-b', [{ status: 200 }]);
    const first = new ProviderHttpClient({ baseUrl, clock, budget, random: () => 0, retry: { maxAttempts: 1 } });
    const throttledAt = clock.now();
    await expect(first.request({ path: '/shared-a' })).rejects.toMatchObject({ code: 'provider_throttled' });
    // Another client on the same account, started right after the 429 (no time has passed).
    expect(clock.now()).toBe(throttledAt);
    let sentAt = -1;
    const second = new ProviderHttpClient({ baseUrl, clock, budget, random: () => 0, headers: () => ((sentAt = clock.now()), {}) });
    await second.request({ path: '/shared-b' });
    expect(sentAt - throttledAt).toBeGreaterThanOrEqual(3000);
  });

  it("gives the budget each request's URL path, for acquiring and for a 429's pause (per-endpoint tiers)", async () => {
    const clock = fakeClock();
    const calls: string[] = [];
    const budget: RequestBudget = {
      acquire: async (_signal, path) => void calls.push(`acquire ${path}`),
      pauseUntil: (untilMs, path) => void calls.push(`pause ${untilMs - clock.now()} ${path}`),
    };
    script.set('/trips/stream', [{ status: 429, headers: { 'retry-after': '2' } }, { status: 200, body: '[]' }]);
    const client = new ProviderHttpClient({ baseUrl: `${baseUrl}/`, clock, budget, random: () => 0 });
    await client.request({ path: 'trips/stream', query: { ids: ['a', 'b'] } });
    expect(calls).toEqual(['acquire /trips/stream', 'pause 2000 /trips/stream', 'acquire /trips/stream']);
  });
});

describe('parseRetryAfter', () => {
  it('reads seconds, fractions and dates; ignores junk', () => {
    expect(parseRetryAfter('2', 0)).toBe(2000);
    expect(parseRetryAfter('0.40235', 0)).toBe(403);
    expect(parseRetryAfter(new Date(10_000).toUTCString(), 4_000)).toBe(6000);
    expect(parseRetryAfter('soon', 0)).toBeUndefined();
    expect(parseRetryAfter('-1', 0)).toBeUndefined();
    expect(parseRetryAfter(null, 0)).toBeUndefined();
  });
});
