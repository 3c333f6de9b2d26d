/**
 * `startSimulators`: the three provider simulators of the sandbox, each on its own port, each
 * rendering its own deterministic fleet (seed `<seed>:<provider>`, so a consumer connecting all
 * three sees three different fleets, not one fleet thrice). The provider definitions are passed in
 * (this file imports no provider folder). Credentials are derived from the seed with HMAC-SHA256 —
 * the same seed gives the same tokens across restarts, so printed curl lines keep working — unless
 * `randomCredentials` is set. They are sandbox secrets all the same: never log them.
 */
import { createHmac, randomBytes } from 'node:crypto';
import { createFleet } from './fleet/fleet.js';
import type { Fleet, SimClock } from './fleet/fleet.types.js';
import { startSimulator } from './common/simulator.js';
import type { ProviderName, RunningSimulator, SimulatorAccount, SimulatorDefinition } from './common/sim-kit.types.js';

export interface StartSimulatorsOptions {
  seed: string;
  /** Vehicles per provider fleet. */
  vehicles: number;
  clock: SimClock;
  /** Fleet epoch (see FleetOptions.epochMs). */
  epochMs?: number;
  /** 0 or absent = an ephemeral port. */
  ports?: Partial<Record<ProviderName, number>>;
  host?: string;
  controlApi: boolean;
  /** Which simulators to start: only the providers given here run. */
  definitions: Partial<Record<ProviderName, SimulatorDefinition>>;
  /** Accounts per simulator (default 1); the first is the one in `credentials`. */
  accountsPerProvider?: number;
  randomCredentials?: boolean;
}

/** The `simulators` section of sandbox-credentials.json. */
export interface SimulatorCredentials {
  samsara?: { baseUrl: string; apiToken: string };
  motive?: { baseUrl: string; apiKey: string };
  geotab?: { baseUrl: string; database: string; userName: string; password: string };
}

export interface RunningSimulators {
  readonly simulators: Partial<Record<ProviderName, RunningSimulator>>;
  readonly fleets: Partial<Record<ProviderName, Fleet>>;
  /** Every account per provider (the first is the one in `credentials`). */
  readonly accounts: Partial<Record<ProviderName, readonly SimulatorAccount[]>>;
  readonly credentials: SimulatorCredentials;
  close(): Promise<void>;
}

const PROVIDERS: readonly ProviderName[] = ['samsara', 'motive', 'geotab'];

function secret(options: StartSimulatorsOptions, label: string, bytes: number): Buffer {
  return options.randomCredentials ? randomBytes(bytes) : createHmac('sha256', `switchyard-sandbox:${options.seed}`).update(label).digest().subarray(0, bytes);
}

/** Credential shapes close to the real ones (formats of real tokens are not documented: any opaque string works). */
export function simulatorAccounts(options: StartSimulatorsOptions, provider: ProviderName, n: number): SimulatorAccount[] {
  const out: SimulatorAccount[] = [];
  for (let i = 0; i < n; i++) {
    const label = `${provider}:${i}`;
    if (provider === 'samsara') out.push({ id: `samsara_api_${secret(options, label, 20).toString('hex')}` });
    else if (provider === 'motive') {
      const hex = secret(options, label, 16).toString('hex');
      out.push({ id: `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}` });
    } else {
      out.push({ id: i === 0 ? 'switchyard_demo' : `switchyard_demo_${i + 1}`, userName: `sandbox${i === 0 ? '' : i + 1}@switchyard.example`, password: secret(options, label, 15).toString('base64url') });
    }
  }
  return out;
}

export async function startSimulators(options: StartSimulatorsOptions): Promise<RunningSimulators> {
  const simulators: Partial<Record<ProviderName, RunningSimulator>> = {};
  const fleets: Partial<Record<ProviderName, Fleet>> = {};
  const accounts: Partial<Record<ProviderName, readonly SimulatorAccount[]>> = {};
  const credentials: SimulatorCredentials = {};
  try {
    for (const provider of PROVIDERS) {
      const def = options.definitions[provider];
      if (!def) continue;
      if (def.provider !== provider) throw new Error(`startSimulators: definitions.${provider} is the ${def.provider} simulator`);
      const fleet = createFleet({ seed: `${options.seed}:${provider}`, vehicles: options.vehicles, ...(options.epochMs !== undefined ? { epochMs: options.epochMs } : {}) });
      const list = simulatorAccounts(options, provider, Math.max(1, options.accountsPerProvider ?? 1));
      const sim = await startSimulator(def, { port: options.ports?.[provider] ?? 0, ...(options.host ? { host: options.host } : {}), fleet, clock: options.clock, accounts: list, controlApi: options.controlApi });
      simulators[provider] = sim;
      fleets[provider] = fleet;
      accounts[provider] = list;
      const first = list[0] as SimulatorAccount;
      if (provider === 'samsara') credentials.samsara = { baseUrl: sim.url, apiToken: first.id };
      else if (provider === 'motive') credentials.motive = { baseUrl: sim.url, apiKey: first.id };
      else credentials.geotab = { baseUrl: sim.url, database: first.id, userName: first.userName as string, password: first.password as string };
    }
  } catch (error) {
    await Promise.allSettled(Object.values(simulators).map((s) => s.close()));
    throw error;
  }
  return {
    simulators,
    fleets,
    accounts,
    credentials,
    close: async () => {
      await Promise.all(Object.values(simulators).map((s) => s.close()));
    },
  };
}
