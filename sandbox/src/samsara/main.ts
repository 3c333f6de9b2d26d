/**
 * Runs the Samsara simulator alone (PORT default 4101; shared variables in common/simulator-main.ts).
 * Accounts: SAMSARA_API_TOKENS, comma-separated (default "samsara-sandbox-token").
 */
import { listEnv, runSimulatorMain } from '../common/simulator-main.js';
import { samsaraSimulator } from './samsara.simulator.js';

runSimulatorMain(samsaraSimulator, { defaultPort: 4101, accounts: () => listEnv('SAMSARA_API_TOKENS', 'samsara-sandbox-token').map((id) => ({ id })) });
