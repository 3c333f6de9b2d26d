/**
 * Runs the gateway alone (as deployed): the public HTTP API on HOST:PORT (default 127.0.0.1:3000;
 * the images set HOST=0.0.0.0); /metrics only on
 * the internal METRICS_PORT (default 9464, 0 = off), which also answers /healthz and /readyz.
 */
import { runMain } from '@switchyard/service-kit';
import { GATEWAY_HOST, GATEWAY_METRICS_PORT } from './config.js';
import { gatewayService, startGateway } from './index.js';

await runMain(gatewayService, { portVariable: 'PORT', defaultPort: 3000, defaultHost: GATEWAY_HOST, metricsPort: { variable: 'METRICS_PORT', defaultPort: GATEWAY_METRICS_PORT }, start: startGateway });
