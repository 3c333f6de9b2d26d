/** Runs the gateway alone (as deployed): the public HTTP API on PORT (default 3000). */
import { runMain } from '@switchyard/service-kit';
import { gatewayService, startGateway } from './index.js';

await runMain(gatewayService, { portVariable: 'PORT', defaultPort: 3000, start: startGateway });
