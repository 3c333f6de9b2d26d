/**
 * The `/_sim` control API (sandbox and tests only; not part of any provider's dialect):
 *   GET    /_sim/accounts                          accounts with request counts (`requests`, and `rateLimited`:
 *                                                  refused by the rate limits), revoked flag, scenarios
 *   GET    /_sim/accounts/{account}/scenarios      the account's active scenarios (counts as remaining)
 *   PUT    /_sim/accounts/{account}/scenarios      replace them with a JSON array of Scenario
 *   DELETE /_sim/accounts/{account}/scenarios      clear them (and lift a revocation)
 *   GET    /_sim/clock                             { nowMs, now, factor }
 *   PUT    /_sim/clock                             { nowMs? | now? (ISO), factor? } on a controllable clock
 *   GET    /_sim/stats                             provider traffic per account and path: responses by
 *                                                  status, 429s, first/last request (wall ms)
 *   DELETE /_sim/stats                             reset those counters
 *   GET    /_sim/oauth, DELETE /_sim/oauth          token-endpoint requests per grant type, and their
 *                                                  reset (Samsara and Motive; served by oauth.routes.ts)
 * Errors are `{ error: { code, message } }` with snake_case codes.
 *
 * The traffic counters (TrafficStats) exist for benchmarks and tests that ask "how fast did the
 * client really call, and how often was it refused" from the provider's side; they count every
 * request of an identified account whatever its answer, on wall time (as the rate limits do).
 * Distinct paths per account are capped (MAX_STATS_PATHS) so id-bearing paths cannot grow them
 * without bound; the rest is counted under `(other)`.
 */
import { z } from 'zod';
import { isControllableClock } from '../fleet/clock.js';
import type { SimClock } from '../fleet/fleet.types.js';
import type { ScenarioBook } from './scenario-book.js';
import { scenarioListSchema } from './scenario.schema.js';
import type { SimRequest, SimResponse } from './sim-kit.types.js';

export interface ControlDeps {
  readonly book: ScenarioBook;
  readonly clock: SimClock;
  readonly accounts: readonly string[];
  readonly stats: TrafficStats;
}

/** Distinct paths counted per account before the rest goes to `(other)`. */
export const MAX_STATS_PATHS = 64;

export interface TrafficCounts {
  requests: number;
  /** Answers with status 429 (token buckets and `rate_limit_storm` alike). */
  rateLimited: number;
  byStatus: Record<string, number>;
  /** Wall time (epoch ms) of the first and last counted request; null before any. */
  firstAtMs: number | null;
  lastAtMs: number | null;
}

const emptyCounts = (): TrafficCounts => ({ requests: 0, rateLimited: 0, byStatus: {}, firstAtMs: null, lastAtMs: null });

function count(c: TrafficCounts, status: number, atMs: number): void {
  c.requests++;
  if (status === 429) c.rateLimited++;
  c.byStatus[status] = (c.byStatus[status] ?? 0) + 1;
  c.firstAtMs ??= atMs;
  c.lastAtMs = atMs;
}

/** Provider-side traffic counters per account (all paths) and per account and path. */
export class TrafficStats {
  private readonly accounts = new Map<string, { total: TrafficCounts; paths: Map<string, TrafficCounts> }>();

  constructor(private readonly wallNow: () => number = () => Date.now()) {}

  record(account: string, path: string, status: number): void {
    const at = this.wallNow();
    let entry = this.accounts.get(account);
    if (!entry) this.accounts.set(account, (entry = { total: emptyCounts(), paths: new Map() }));
    const key = entry.paths.has(path) || entry.paths.size < MAX_STATS_PATHS ? path : '(other)';
    let perPath = entry.paths.get(key);
    if (!perPath) entry.paths.set(key, (perPath = emptyCounts()));
    count(entry.total, status, at);
    count(perPath, status, at);
  }

  view(): { accounts: Record<string, TrafficCounts & { paths: Record<string, TrafficCounts> }> } {
    const accounts: Record<string, TrafficCounts & { paths: Record<string, TrafficCounts> }> = {};
    for (const [account, { total, paths }] of this.accounts) {
      accounts[account] = { ...structuredClone(total), paths: Object.fromEntries([...paths].map(([p, c]) => [p, structuredClone(c)])) };
    }
    return { accounts };
  }

  reset(): void {
    this.accounts.clear();
  }
}

const clockSchema = z.strictObject({
  nowMs: z.number().int().optional(),
  now: z.iso.datetime({ offset: true }).optional(),
  factor: z.number().min(0).max(1_000_000).optional(),
});

const fail = (status: number, code: string, message: string): SimResponse => ({ status, body: { error: { code, message } } });

function accountView(deps: ControlDeps, account: string) {
  return { account, requests: deps.book.requests(account), rateLimited: deps.book.rateLimited(account), revoked: deps.book.revoked(account), scenarios: deps.book.list(account) };
}

function clockView(clock: SimClock) {
  const nowMs = clock.now();
  return { nowMs, now: new Date(nowMs).toISOString(), factor: isControllableClock(clock) ? clock.describe().factor : null };
}

export function handleControl(req: SimRequest, deps: ControlDeps): SimResponse {
  const { method, path } = req;
  if (path === '/_sim/accounts' && method === 'GET') return { status: 200, body: { accounts: deps.accounts.map((a) => accountView(deps, a)) } };
  const match = /^\/_sim\/accounts\/([^/]+)\/scenarios$/.exec(path);
  if (match) {
    const account = decodeURIComponent(match[1] as string);
    if (!deps.book.has(account)) return fail(404, 'account_not_found', 'no such account on this simulator');
    if (method === 'GET') return { status: 200, body: accountView(deps, account) };
    if (method === 'DELETE') {
      deps.book.clear(account);
      return { status: 204, body: undefined };
    }
    if (method === 'PUT') {
      const parsed = scenarioListSchema.safeParse(req.body);
      if (!parsed.success) return { status: 400, body: { error: { code: 'invalid_scenarios', message: 'body must be a JSON array of scenarios', issues: parsed.error.issues } } };
      deps.book.set(account, parsed.data);
      return { status: 200, body: accountView(deps, account) };
    }
    return fail(405, 'method_not_allowed', 'use GET, PUT or DELETE');
  }
  if (path === '/_sim/stats') {
    if (method === 'GET') return { status: 200, body: deps.stats.view() };
    if (method === 'DELETE') {
      deps.stats.reset();
      return { status: 204, body: undefined };
    }
    return fail(405, 'method_not_allowed', 'use GET or DELETE');
  }
  if (path === '/_sim/clock') {
    if (method === 'GET') return { status: 200, body: clockView(deps.clock) };
    if (method === 'PUT') {
      const { clock } = deps;
      if (!isControllableClock(clock)) return fail(409, 'clock_not_controllable', 'this simulator runs on a clock that cannot be set');
      const parsed = clockSchema.safeParse(req.body);
      if (!parsed.success) return { status: 400, body: { error: { code: 'invalid_clock', message: 'body is { nowMs?, now?, factor? }', issues: parsed.error.issues } } };
      const { nowMs, now, factor } = parsed.data;
      clock.set({ ...(nowMs !== undefined ? { nowMs } : now !== undefined ? { nowMs: Date.parse(now) } : {}), ...(factor !== undefined ? { factor } : {}) });
      return { status: 200, body: clockView(clock) };
    }
    return fail(405, 'method_not_allowed', 'use GET or PUT');
  }
  return fail(404, 'not_found', 'unknown control route');
}
