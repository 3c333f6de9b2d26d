/**
 * Runs the Geotab simulator alone (PORT default 4103; shared variables in common/simulator-main.ts).
 * Account: GEOTAB_DATABASE (default "switchyard_demo"), GEOTAB_USERNAME (default
 * "sandbox@switchyard.example"), GEOTAB_PASSWORD (required: a sandbox secret, never printed).
 */
import { runSimulatorMain } from '../common/simulator-main.js';
import { geotabSimulator } from './geotab.simulator.js';

runSimulatorMain(geotabSimulator, {
  defaultPort: 4103,
  accounts: () => {
    const password = process.env.GEOTAB_PASSWORD;
    if (!password) throw new Error('GEOTAB_PASSWORD is required (the sandbox service account password)');
    return [{ id: process.env.GEOTAB_DATABASE ?? 'switchyard_demo', userName: process.env.GEOTAB_USERNAME ?? 'sandbox@switchyard.example', password }];
  },
});
