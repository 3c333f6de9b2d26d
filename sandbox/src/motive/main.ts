/**
 * Runs the Motive simulator alone (one process, or the `motive-sim` container). Environment:
 * PORT (default 4102), HOST (default 127.0.0.1; 0.0.0.0 in a container), SIM_SEED (default
 * "switchyard"), SIM_VEHICLES (default 100), MOTIVE_API_KEYS (comma-separated accounts, default
 * "motive-sandbox-key"), SIM_CLOCK_FACTOR (simulated ms per wall ms, default 1; 0 = fixed),
 * SIM_START (ISO start of the simulated clock, default now), SIM_CONTROL_API ("false" disables /_sim).
 * Keys are never printed: only how many accounts exist.
 */
import { startSimulator } from '../common/simulator.js';
import { acceleratedClock, createFleet } from '../fleet/fleet.js';
import { motiveSimulator } from './motive.simulator.js';

function numberEnv(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isFinite(n) || n < 0) throw new Error(`${name} must be a non-negative number, got "${raw}"`);
  return n;
}

async function main(): Promise<void> {
  const port = numberEnv('PORT', 4102);
  const vehicles = numberEnv('SIM_VEHICLES', 100);
  const factor = numberEnv('SIM_CLOCK_FACTOR', 1);
  const start = process.env.SIM_START ? Date.parse(process.env.SIM_START) : Date.now();
  if (Number.isNaN(start)) throw new Error('SIM_START must be an ISO date-time');
  const keys = (process.env.MOTIVE_API_KEYS ?? 'motive-sandbox-key').split(',').map((k) => k.trim()).filter(Boolean);
  const sim = await startSimulator(motiveSimulator, {
    port,
    host: process.env.HOST ?? '127.0.0.1',
    fleet: createFleet({ seed: process.env.SIM_SEED ?? 'switchyard', vehicles }),
    clock: acceleratedClock({ startMs: start, factor }),
    accounts: keys.map((id) => ({ id })),
    controlApi: process.env.SIM_CONTROL_API !== 'false',
  });
  console.log(JSON.stringify({ msg: 'motive simulator listening', url: sim.url, vehicles, accounts: keys.length }));
  const stop = () => void sim.close().then(() => process.exit(0));
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
