/**
 * Shared setup of the Geotab contract suites: one simulator on an ephemeral port with a fixed clock
 * and a 25-vehicle fleet, one database per suite area (rate-limit buckets and scenarios are per
 * database, so areas never throttle each other), and adapters whose clock is the simulator's and
 * whose sleeps return at once but are recorded (Retry-After waits are asserted, not waited).
 */
import { createGeotabAdapter, GeotabClient, type GeotabAdapterOptions, type GeotabPageSizes, type Page } from '@switchyard/providers';
import { startSimulator } from '../src/common/simulator.js';
import type { RunningSimulator, SimulatorAccount } from '../src/common/sim-kit.types.js';
import { createFleet, fixedClock, type ControllableClock } from '../src/fleet/fleet.js';
import type { Fleet } from '../src/fleet/fleet.types.js';
import { geotabSimulator } from '../src/geotab/index.js';

/** 2025-02-10T15:30Z: 40 days of history after the fleet epoch (2025-01-01). */
export const NOW = Date.UTC(2025, 1, 10, 15, 30);
export const HOUR = 3_600_000;
export const DAY = 24 * HOUR;
export const iso = (ms: number): string => new Date(ms).toISOString();

export interface GeotabHarness {
  sim: RunningSimulator;
  fleet: Fleet;
  clock: ControllableClock;
  account(id: string): SimulatorAccount;
  adapter(database: string, options?: { pageSizes?: Partial<GeotabPageSizes>; timeoutMs?: number; maxAttempts?: number; sleeps?: number[] }): ReturnType<typeof createGeotabAdapter>;
  client(database: string): GeotabClient;
  close(): Promise<void>;
}

/** `rateLimitWallNow`: the simulator's rate-limit clock (a test that counts admitted requests freezes it). */
export async function startGeotabHarness(databases: readonly string[], seed = 'geotab-contract', rateLimitWallNow?: () => number): Promise<GeotabHarness> {
  const fleet = createFleet({ seed, vehicles: 25 });
  const clock = fixedClock(NOW);
  const accounts = databases.map((id) => ({ id, userName: `svc-${id}-fleetapi@example.com`, password: `pw-${id}-7Qx` }));
  const sim = await startSimulator(geotabSimulator, { port: 0, fleet, clock, accounts, controlApi: true, rateLimitWallNow });
  const account = (id: string) => {
    const found = accounts.find((a) => a.id === id);
    if (!found) throw new Error(`no account ${id}`);
    return found;
  };
  const credentials = (id: string) => ({ database: id, userName: account(id).userName, password: account(id).password });
  const adapterClock = (sleeps: number[]) => ({ now: () => clock.now(), sleep: async (ms: number) => void sleeps.push(ms) });
  return {
    sim,
    fleet,
    clock,
    account,
    adapter: (database, options = {}) => {
      const opts: GeotabAdapterOptions = {
        provider: 'geotab',
        baseUrl: sim.url,
        credentials: credentials(database),
        clock: adapterClock(options.sleeps ?? []),
        timeoutMs: options.timeoutMs ?? 5_000,
        retry: { maxAttempts: options.maxAttempts ?? 3, baseDelayMs: 1, maxDelayMs: 5 },
        random: () => 0.5,
        pageSizes: options.pageSizes,
      };
      return createGeotabAdapter(opts);
    },
    client: (database) => new GeotabClient({ baseUrl: sim.url, credentials: credentials(database), clock: adapterClock([]), retry: { maxAttempts: 1 } }),
    close: () => sim.close(),
  };
}

/** Every page of a paged read, following `next` (bounded, so a cursor bug fails instead of looping). */
export async function allPages<T>(read: (cursor: string | null) => Promise<Page<T>>, maxPages = 500): Promise<{ items: T[]; pages: number }> {
  const items: T[] = [];
  let cursor: string | null = null;
  for (let pages = 1; pages <= maxPages; pages++) {
    const page: Page<T> = await read(cursor);
    items.push(...page.items);
    if (!page.next) return { items, pages };
    cursor = page.next;
  }
  throw new Error(`more than ${maxPages} pages`);
}

/** Raw JSON-RPC over fetch, for what the adapter deliberately never does (hammering Authenticate). */
export async function rpc(url: string, method: string, params: Record<string, unknown>): Promise<{ status: number; headers: Headers; body: { result?: unknown; error?: { data?: { type?: string } } } }> {
  const res = await fetch(`${url}/apiv1`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ method, params }) });
  return { status: res.status, headers: res.headers, body: (await res.json()) as { result?: unknown; error?: { data?: { type?: string } } } };
}

/** What the adapter must produce for speed: GO devices report integer km/h. */
export const mpsAsReported = (mps: number): number => Math.round(mps * 3.6) / 3.6;

/** The same last-sample rule the simulator's in-effect Get uses. */
export function lastSampleAtOrBefore(fleet: Fleet, v: number, atMs: number, stepMs: number): number | undefined {
  return fleet.sampleTimes(v, atMs - 2 * HOUR, atMs + 1, stepMs).at(-1);
}
