/**
 * Runs the Samsara simulator alone (one process, or the `samsara-sim` container). Environment:
 * PORT (default 4101), HOST (default 127.0.0.1; 0.0.0.0 in a container), SIM_SEED (default
 * "switchyard"), SIM_VEHICLES (default 100), SAMSARA_API_TOKENS (comma-separated accounts, default
 * "samsara-sandbox-token"), SIM_CLOCK_FACTOR (simulated ms per wall ms, default 1; 0 = fixed),
 * SIM_START (ISO start of the simulated clock, default now), SIM_CONTROL_API ("false" disables /_sim).
 * Tokens are never printed: only how many accounts exist.
 */
import { startSimulator } from '../common/simulator.js';
import { acceleratedClock, createFleet } from '../fleet/fleet.js';
import { samsaraSimulator } from './samsara.simulator.js';

function intEnv(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isFinite(n) || n < 0) throw new Error(`${name} must be a non-negative number, got "${raw}"`);
  return n;
}

async function main(): Promise<void> {
  const port = intEnv('PORT', 4101);
  const vehicles = intEnv('SIM_VEHICLES', 100);
  const factor = intEnv('SIM_CLOCK_FACTOR', 1);
  const start = process.env.SIM_START ? Date.parse(process.env.SIM_START) : Date.now();
  if (Number.isNaN(start)) throw new Error('SIM_START must be an ISO date-time');
  const tokens = (process.env.SAMSARA_API_TOKENS ?? 'samsara-sandbox-token').split(',').map((t) => t.trim()).filter(Boolean);
  const sim = await startSimulator(samsaraSimulator, {
    port,
    host: process.env.HOST ?? '127.0.0.1',
    fleet: createFleet({ seed: process.env.SIM_SEED ?? 'switchyard', vehicles }),
    clock: acceleratedClock({ startMs: start, factor }),
    accounts: tokens.map((id) => ({ id })),
    controlApi: process.env.SIM_CONTROL_API !== 'false',
  });
  console.log(JSON.stringify({ msg: 'samsara simulator listening', url: sim.url, vehicles, accounts: tokens.length }));
  const stop = () => void sim.close().then(() => process.exit(0));
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
