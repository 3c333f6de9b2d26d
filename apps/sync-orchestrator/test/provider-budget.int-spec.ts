/**
 * The shared provider request budget on the real PostgreSQL: two PgRequestBudgets on two ORM
 * instances (two connection pools, as two collector processes have) share one account's bucket,
 * so together they never take more than burst + rate · elapsed tokens; a pause announced by one
 * holds the other; an aborted wait rejects with the caller's reason; an endpoint tier is a second
 * shared row that tiered requests also take from and that a tier 429 pauses alone. Timing is asserted as lower
 * bounds only (a slow machine may take longer, never shorter).
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { createOrm, type Orm } from '@switchyard/persistence';
import { pollUntil, startServiceForTest, type ServiceUnderTest } from '@switchyard/testing';
import { PgRequestBudget, startSyncOrchestrator, syncOrchestratorService } from '../src/index.js';

let h: ServiceUnderTest;
let ormA: Orm;
let ormB: Orm;

const key = () => `samsara:${randomUUID().replaceAll('-', '').slice(0, 16)}`;

async function row(accountKey: string) {
  const rows = await ormA.em
    .fork()
    .execute<{ tokens: number; burst: number; paused_until: string | null }[]>(`select tokens, burst, paused_until from "${h.schema}".provider_budget where account_key = ?`, [accountKey]);
  return rows[0];
}

beforeAll(async () => {
  h = await startServiceForTest(syncOrchestratorService, { start: startSyncOrchestrator });
  ormA = h.service.runtime.orm;
  // A second pool on the same schema: the "other process".
  ormB = await createOrm({
    clientUrl: h.databaseUrl,
    schema: h.schema,
    entities: syncOrchestratorService.entities,
    migrations: syncOrchestratorService.migrations,
    allServiceSchemas: Object.values(h.schemas),
  });
});

afterAll(async () => {
  await ormB?.close(true);
  await h?.close();
});

describe('PgRequestBudget', () => {
  it('two processes sharing an account together wait at least (N - burst) / rate seconds for N tokens', async () => {
    const accountKey = key();
    const options = { accountKey, provider: 'samsara' as const, ratePerSecond: 20, burst: 5 };
    const a = new PgRequestBudget(ormA, options);
    const b = new PgRequestBudget(ormB, options);
    const n = 45;
    const grantedBy = { a: 0, b: 0 };
    const started = performance.now();
    await Promise.all(
      Array.from({ length: n }, (_, i) => {
        const [budget, name] = i % 2 === 0 ? ([a, 'a'] as const) : ([b, 'b'] as const);
        return budget.acquire().then(() => (grantedBy[name] += 1));
      }),
    );
    const elapsedMs = performance.now() - started;
    expect(grantedBy).toEqual({ a: 23, b: 22 });
    // (45 - 5) / 20 = 2 s. The bucket runs on the database clock; 10 ms covers the two clocks'
    // granularity (a real overrun would be hundreds of ms: 45 tokens at once would be ~0 s).
    expect(elapsedMs).toBeGreaterThanOrEqual(((n - options.burst) / options.ratePerSecond) * 1000 - 10);
    const after = await row(accountKey);
    expect(after!.tokens).toBeLessThanOrEqual(after!.burst);
    expect(after!.tokens).toBeGreaterThanOrEqual(0);
  });

  it('a pause (Retry-After) announced by one process holds the other', async () => {
    const accountKey = key();
    const options = { accountKey, provider: 'samsara' as const, ratePerSecond: 100, burst: 100 };
    const a = new PgRequestBudget(ormA, options);
    const b = new PgRequestBudget(ormB, options);
    await a.acquire();
    await b.acquire();
    a.pauseUntil(Date.now() + 800);
    // pauseUntil is fire-and-forget (the interface is synchronous): wait until the row has it.
    for (let i = 0; i < 100 && !(await row(accountKey))?.paused_until; i++) await new Promise((r) => setTimeout(r, 10));
    expect((await row(accountKey))!.paused_until).toEqual(expect.any(String));
    const started = performance.now();
    await b.acquire();
    // The row's pause ends 800 ms after it was written, which preceded `started`; polling took
    // at most a few tens of ms, so B waited for the pause rather than taking one of its 98 tokens.
    expect(performance.now() - started).toBeGreaterThanOrEqual(600);
  });

  it('an acquire waiting for a token rejects with the abort reason, and a later acquire still gets the next token', async () => {
    const accountKey = key();
    const budget = new PgRequestBudget(ormA, { accountKey, provider: 'motive', ratePerSecond: 2, burst: 1 });
    await budget.acquire();
    const reason = new Error('collector stopping');
    const controller = new AbortController();
    const waiting = budget.acquire(controller.signal);
    setTimeout(() => controller.abort(reason), 50);
    await expect(waiting).rejects.toBe(reason);
    const started = performance.now();
    await budget.acquire();
    // The next token is due 500 ms after the first take; the abort at ~50 ms consumed nothing.
    expect(performance.now() - started).toBeGreaterThanOrEqual(300);
  });

  it('keeps an endpoint tier in its own shared row: a tiered request takes from both, a 429 on it pauses only the tier', async () => {
    const accountKey = key();
    const tiers = [{ name: 'trips-stream', matches: (p: string) => p === '/trips/stream', ratePerSecond: 0.001, burst: 2 }];
    const a = new PgRequestBudget(ormA, { accountKey, provider: 'samsara', ratePerSecond: 0.001, burst: 10, tiers });
    const b = new PgRequestBudget(ormB, { accountKey, provider: 'samsara', ratePerSecond: 0.001, burst: 10, tiers });
    await a.acquire(undefined, '/trips/stream');
    await b.acquire(undefined, '/trips/stream');
    await a.acquire(undefined, '/fleet/vehicles');
    // Both processes drew on one tier row (2 of 2 taken) and on the account row (3 of 10).
    expect(Math.floor((await row(`${accountKey}/trips-stream`))!.tokens)).toBe(0);
    expect(Math.floor((await row(accountKey))!.tokens)).toBe(7);
    // The tier is empty (a token every 1,000 s): a third tiered request waits, an untiered one does not.
    const controller = new AbortController();
    const waiting = a.acquire(controller.signal, '/trips/stream');
    await b.acquire(undefined, '/tags');
    controller.abort(new Error('stop'));
    await expect(waiting).rejects.toThrow('stop');
    // A 429 on the tiered path pauses the tier row, not the account.
    a.pauseUntil(Date.now() + 60_000, '/trips/stream');
    await pollUntil(async () => (await row(`${accountKey}/trips-stream`))!.paused_until !== null, { description: 'tier pause written' });
    await a.acquire(undefined, '/tags');
    expect((await row(accountKey))!.paused_until).toBeNull();
  });

  it('costs one database round trip per acquire (measured; printed, not asserted)', async () => {
    const budget = new PgRequestBudget(ormA, { accountKey: key(), provider: 'samsara', ratePerSecond: 1e6, burst: 1e6 });
    await budget.acquire();
    const count = 1_000;
    const started = performance.now();
    for (let i = 0; i < count; i++) await budget.acquire();
    const meanMs = (performance.now() - started) / count;
    process.stdout.write(`PgRequestBudget: ${count} sequential acquires, mean ${meanMs.toFixed(3)} ms\n`);
    expect(meanMs).toBeGreaterThan(0);
  });
});
