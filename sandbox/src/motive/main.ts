/**
 * Runs the Motive simulator alone (PORT default 4102; shared variables in common/simulator-main.ts).
 * Accounts: MOTIVE_API_KEYS, comma-separated (default "motive-sandbox-key").
 */
import { listEnv, runSimulatorMain } from '../common/simulator-main.js';
import { motiveSimulator } from './motive.simulator.js';

runSimulatorMain(motiveSimulator, { defaultPort: 4102, accounts: () => listEnv('MOTIVE_API_KEYS', 'motive-sandbox-key').map((id) => ({ id })) });
