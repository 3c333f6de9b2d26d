/**
 * The provider simulators of `npm start`: Samsara, Motive and Geotab dialects over one synthetic
 * fleet each, on a real-time clock. Their seed and fleet epoch are created once per data dir
 * (`simulators.json`, mode 0600) so a restart serves the same fleet with the same credentials —
 * the vehicles' odometers keep counting instead of starting over.
 * Ports: SAMSARA_SIM_PORT / MOTIVE_SIM_PORT / GEOTAB_SIM_PORT (defaults 4101-4103; 0 = any free port).
 */
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { acceleratedClock, geotabSimulator, motiveSimulator, samsaraSimulator, startSimulators, type RunningSimulators } from '@switchyard/sandbox';

interface SimulatorState {
  seed: string;
  epochMs: number;
}

const DAY_MS = 86_400_000;

function loadState(dataDir: string): SimulatorState {
  const file = path.join(dataDir, 'simulators.json');
  if (existsSync(file)) return JSON.parse(readFileSync(file, 'utf8')) as SimulatorState;
  // Thirty days of history before the first start keeps the first full snapshot cheap.
  const state = { seed: randomBytes(16).toString('hex'), epochMs: Math.floor((Date.now() - 30 * DAY_MS) / DAY_MS) * DAY_MS };
  writeFileSync(file, JSON.stringify(state, null, 2), { mode: 0o600 });
  return state;
}

export async function startSandboxSimulators(env: NodeJS.ProcessEnv, dataDir: string): Promise<RunningSimulators> {
  const state = loadState(dataDir);
  const port = (name: string, fallback: number) => Number(env[name] ?? fallback);
  return startSimulators({
    seed: state.seed,
    epochMs: state.epochMs,
    vehicles: Number(env.SANDBOX_VEHICLES ?? 25),
    clock: acceleratedClock({ startMs: Date.now(), factor: 1 }),
    ports: { samsara: port('SAMSARA_SIM_PORT', 4101), motive: port('MOTIVE_SIM_PORT', 4102), geotab: port('GEOTAB_SIM_PORT', 4103) },
    host: env.HOST ?? '127.0.0.1',
    controlApi: true,
    definitions: { samsara: samsaraSimulator, motive: motiveSimulator, geotab: geotabSimulator },
  });
}
