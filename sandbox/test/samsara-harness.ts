/**
 * Test harness for the Samsara contract suites: a simulator on a free port over a small fixed-clock
 * fleet, with page sizes small enough that every listing spans several pages, an adapter factory
 * with fast retry policies, and helpers that translate the fleet's truth into what the adapter must
 * report. Each suite starts its own simulator, so scenario and clock changes never leak between files.
 */
import { createSamsaraAdapter, type AdapterOptions, type ProviderAdapter, collectPages } from '@switchyard/providers';
import { startSimulator } from '../src/common/simulator.js';
import type { RunningSimulator } from '../src/common/sim-kit.types.js';
import { createFleet, fixedClock, type ControllableClock } from '../src/fleet/fleet.js';
import type { Fleet, SimFault } from '../src/fleet/fleet.types.js';
import { createSamsaraSimulator } from '../src/samsara/index.js';

/** A Monday mid-morning (UTC) in the fleet's third month: most shifts are running, some trips are in progress. Not minute-aligned on purpose. */
export const NOW = Date.parse('2025-03-10T12:30:20Z');
export const TOKEN = 'samsara-contract-token';
export const OTHER_TOKEN = 'samsara-contract-other';
export const PAGE = { maxPageSize: 7, statsPageSize: 6, historyPageSize: 4, tripsPageSize: 40 } as const;

export interface SamsaraHarness {
  readonly fleet: Fleet;
  readonly clock: ControllableClock;
  readonly sim: RunningSimulator;
  adapter(overrides?: Partial<AdapterOptions<'samsara'>>): ProviderAdapter;
  close(): Promise<void>;
}

export async function startSamsaraHarness(vehicles = 25): Promise<SamsaraHarness> {
  const fleet = createFleet({ seed: 'samsara-contract', vehicles });
  const clock = fixedClock(NOW);
  const sim = await startSimulator(createSamsaraSimulator(PAGE), {
    port: 0,
    fleet,
    clock,
    accounts: [{ id: TOKEN }, { id: OTHER_TOKEN }],
    controlApi: true,
  });
  return {
    fleet,
    clock,
    sim,
    adapter: (overrides = {}) =>
      createSamsaraAdapter({
        provider: 'samsara',
        baseUrl: sim.url,
        credentials: { apiToken: TOKEN },
        timeoutMs: 2_000,
        retry: { maxAttempts: 3, baseDelayMs: 10, maxDelayMs: 50 },
        ...overrides,
      }),
    close: () => sim.close(),
  };
}

/** Every page of a listing, following `next` to the end. */
export function drain<T>(fetchPage: (cursor: string | null) => Promise<{ items: readonly T[]; next: string | null }>): Promise<{ items: T[]; pages: number }> {
  return collectPages(fetchPage, 10_000);
}

/** The adapter's fault key for a fleet fault, as the simulator renders it (txId 0, confirmed OBD codes). */
export function adapterFaultKey(f: SimFault): string {
  return f.protocol === 'j1939' ? `j1939:0:spn${f.spn}:fmi${f.fmi}` : `obdii:0:${f.code}:confirmed`;
}

export const iso = (ms: number): string => new Date(ms).toISOString();
