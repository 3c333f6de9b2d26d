/**
 * Test harness for the Motive contract suites: the Motive simulator on a free port over a small
 * fixed-clock fleet, with a page cap (10) small enough that every listing spans several pages, one
 * API key per test (so scenarios and rate-limit buckets never leak between tests), and an adapter
 * factory whose clock reads the simulator's time and records every backoff sleep instead of
 * waiting it out (Retry-After compliance is asserted on the recorded sleeps).
 */
import { createMotiveAdapter, type AdapterOptions, type Clock, type ProviderAdapter, collectPages } from '@switchyard/providers';
import { startSimulator } from '../src/common/simulator.js';
import type { RunningSimulator } from '../src/common/sim-kit.types.js';
import { createFleet, fixedClock, type ControllableClock } from '../src/fleet/fleet.js';
import type { Fleet } from '../src/fleet/fleet.types.js';
import { createMotiveSimulator, MOTIVE_IDS } from '../src/motive/index.js';

/** A Monday mid-morning (UTC) in the fleet's third month: shifts running, some trips in progress. Not second-aligned on purpose. */
export const NOW = Date.parse('2025-03-10T12:30:20.250Z');
export const MAX_PER_PAGE = 10;
export const KEYS = [
  'directory',
  'telemetry',
  'units',
  'storm',
  'storm-long',
  'burst',
  'burst-long',
  'slow',
  'hang',
  'truncated',
  'revoked',
  'forbidden-faults',
  'forbidden-groups',
  'rename',
  'retype',
  'retype-id',
  'reorder',
  'late',
  'reset',
  'swap',
  'limit',
].map((k) => `motive-contract-${k}`);
export const key = (name: string): string => `motive-contract-${name}`;

export interface MotiveHarness {
  readonly fleet: Fleet;
  readonly clock: ControllableClock;
  readonly sim: RunningSimulator;
  /** Backoff sleeps (ms) requested by the adapters made by `adapter()`, in order. */
  readonly sleeps: number[];
  adapter(apiKey: string, overrides?: Partial<AdapterOptions<'motive'>>): ProviderAdapter;
  close(): Promise<void>;
}

export async function startMotiveHarness(vehicles = 25): Promise<MotiveHarness> {
  const fleet = createFleet({ seed: 'motive-contract', vehicles });
  const clock = fixedClock(NOW);
  const sim = await startSimulator(createMotiveSimulator({ maxPerPage: MAX_PER_PAGE }), { port: 0, fleet, clock, accounts: KEYS.map((id) => ({ id })), controlApi: true });
  const sleeps: number[] = [];
  const adapterClock: Clock = {
    now: () => clock.now(),
    sleep: async (ms) => {
      sleeps.push(ms);
      await new Promise((r) => setTimeout(r, Math.min(ms, 5)));
    },
  };
  return {
    fleet,
    clock,
    sim,
    sleeps,
    adapter: (apiKey, overrides = {}) =>
      createMotiveAdapter({
        provider: 'motive',
        baseUrl: sim.url,
        credentials: { apiKey },
        clock: adapterClock,
        timeoutMs: 2_000,
        retry: { maxAttempts: 4, baseDelayMs: 10, maxDelayMs: 50 },
        ...overrides,
      }),
    close: () => sim.close(),
  };
}

/** Every page of a listing, following `next` to the end. */
export function drain<T>(fetchPage: (cursor: string | null) => Promise<{ items: readonly T[]; next: string | null }>): Promise<{ items: T[]; pages: number }> {
  return collectPages(fetchPage, 5_000);
}

export const vehicleId = (index: number): string => String(MOTIVE_IDS.vehicle(index));
export const driverId = (index: number): string => String(MOTIVE_IDS.user(index));
export const groupId = (index: number): string => String(MOTIVE_IDS.group(index));
export const vehicleIndexOf = (id: string): number => Number(id) - MOTIVE_IDS.vehicle(0);
export const iso = (ms: number): string => new Date(ms).toISOString();
/** The simulator reports whole seconds; times in records are that second, in ISO with ms. */
export const second = (ms: number): number => Math.floor(ms / 1000) * 1000;
export const DAY_MS = 86_400_000;
