/**
 * Runs the Geotab simulator alone (one process, or the `geotab-sim` container). Environment:
 * PORT (default 4103), HOST (default 127.0.0.1; 0.0.0.0 in a container), SIM_SEED (default
 * "switchyard"), SIM_VEHICLES (default 100), GEOTAB_DATABASE (default "switchyard_demo"),
 * GEOTAB_USERNAME (default "sandbox@switchyard.example"), GEOTAB_PASSWORD (required: a sandbox
 * secret, never printed), SIM_CLOCK_FACTOR (simulated ms per wall ms, default 1; 0 = fixed),
 * SIM_START (ISO start of the simulated clock, default now), SIM_CONTROL_API ("false" disables /_sim).
 */
import { startSimulator } from '../common/simulator.js';
import { acceleratedClock, createFleet } from '../fleet/fleet.js';
import { geotabSimulator } from './geotab.simulator.js';

function intEnv(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isFinite(n) || n < 0) throw new Error(`${name} must be a non-negative number, got "${raw}"`);
  return n;
}

async function main(): Promise<void> {
  const port = intEnv('PORT', 4103);
  const vehicles = intEnv('SIM_VEHICLES', 100);
  const factor = intEnv('SIM_CLOCK_FACTOR', 1);
  const start = process.env.SIM_START ? Date.parse(process.env.SIM_START) : Date.now();
  if (Number.isNaN(start)) throw new Error('SIM_START must be an ISO date-time');
  const password = process.env.GEOTAB_PASSWORD;
  if (!password) throw new Error('GEOTAB_PASSWORD is required (the sandbox service account password)');
  const account = { id: process.env.GEOTAB_DATABASE ?? 'switchyard_demo', userName: process.env.GEOTAB_USERNAME ?? 'sandbox@switchyard.example', password };
  const sim = await startSimulator(geotabSimulator, {
    port,
    host: process.env.HOST ?? '127.0.0.1',
    fleet: createFleet({ seed: process.env.SIM_SEED ?? 'switchyard', vehicles }),
    clock: acceleratedClock({ startMs: start, factor }),
    accounts: [account],
    controlApi: process.env.SIM_CONTROL_API !== 'false',
  });
  console.log(JSON.stringify({ msg: 'geotab simulator listening', url: sim.url, vehicles, database: account.id }));
  const stop = () => void sim.close().then(() => process.exit(0));
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
