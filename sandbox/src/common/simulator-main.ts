/**
 * The body of every simulator's main.ts (one process, or its container). Environment shared by all
 * three: PORT, HOST (default 127.0.0.1; 0.0.0.0 in a container), SIM_SEED (default "switchyard"),
 * SIM_VEHICLES (default 100), SIM_CLOCK_FACTOR (simulated ms per wall ms, default 1; 0 = fixed),
 * SIM_START (ISO start of the simulated clock, default now), SIM_CONTROL_API ("false" disables
 * /_sim), and for Samsara's and Motive's OAuth (oauth.routes.ts) SIM_OAUTH_CLIENT_ID /
 * SIM_OAUTH_CLIENT_SECRET (the registered client) and SIM_OAUTH_ACCESS_TOKEN_TTL_SECONDS (access
 * token lifetime, default 3600). Accounts come from the provider's own variables (see each main.ts). Credentials are never
 * printed: only how many accounts exist. SIGTERM/SIGINT close the server and exit 0.
 */
import { acceleratedClock, createFleet } from '../fleet/fleet.js';
import type { SimulatorAccount, SimulatorDefinition } from './sim-kit.types.js';
import { startSimulator } from './simulator.js';

export function numberEnv(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isFinite(n) || n < 0) throw new Error(`${name} must be a non-negative number, got "${raw}"`);
  return n;
}

/** Comma-separated account ids from `name`, or the fallback. */
export function listEnv(name: string, fallback: string): string[] {
  return (process.env[name] ?? fallback)
    .split(',')
    .map((v) => v.trim())
    .filter(Boolean);
}

export function runSimulatorMain(definition: SimulatorDefinition, options: { defaultPort: number; accounts: () => SimulatorAccount[] }): void {
  const main = async () => {
    const port = numberEnv('PORT', options.defaultPort);
    const vehicles = numberEnv('SIM_VEHICLES', 100);
    const factor = numberEnv('SIM_CLOCK_FACTOR', 1);
    const start = process.env.SIM_START ? Date.parse(process.env.SIM_START) : Date.now();
    if (Number.isNaN(start)) throw new Error('SIM_START must be an ISO date-time');
    const accounts = options.accounts();
    const sim = await startSimulator(definition, {
      port,
      host: process.env.HOST ?? '127.0.0.1',
      fleet: createFleet({ seed: process.env.SIM_SEED ?? 'switchyard', vehicles }),
      clock: acceleratedClock({ startMs: start, factor }),
      accounts,
      controlApi: process.env.SIM_CONTROL_API !== 'false',
    });
    console.log(JSON.stringify({ msg: `${definition.provider} simulator listening`, url: sim.url, vehicles, accounts: accounts.length }));
    const stop = () => void sim.close().then(() => process.exit(0));
    process.once('SIGTERM', stop);
    process.once('SIGINT', stop);
  };
  main().catch((error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  });
}
