/**
 * Runs the gateway alone (as deployed): the public HTTP API on HOST:PORT (default 127.0.0.1:3000;
 * the images set HOST=0.0.0.0); /metrics only on
 * the internal METRICS_PORT (default 9464, 0 = off), which also answers /healthz and /readyz. Every
 * gateway variable (config.ts) is checked before NATS is dialled: one message names each bad one.
 */
import { runMain } from '@switchyard/service-kit';
import { GATEWAY_MAIN_ENV } from './config.js';
import { gatewayService, startGateway } from './index.js';

await runMain(gatewayService, { ...GATEWAY_MAIN_ENV, start: startGateway });
