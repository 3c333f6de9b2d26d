/**
 * Runs the gateway's webhook delivery role alone (as deployed: `webhook-delivery` of the gateway
 * image, decision 0042): the FAULTS and EVENTS fan-out consumers and the delivery loop, on the
 * gateway's schema; /healthz, /readyz and /metrics on HEALTH_PORT (default 3106, 0 = none). Every
 * variable (the gateway's, config.ts, WEBHOOK_* among them) is checked before NATS is dialled.
 */
import { runMain } from '@switchyard/service-kit';
import { WEBHOOK_DELIVERY_MAIN_ENV } from './config.js';
import { startWebhookDelivery, webhookDeliveryService } from './index.js';

await runMain(webhookDeliveryService, { ...WEBHOOK_DELIVERY_MAIN_ENV, start: startWebhookDelivery });
