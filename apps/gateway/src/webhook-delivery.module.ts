/**
 * The module graph of the gateway's webhook delivery role (decision 0042): imports and wiring only.
 * The fan-out consumers and the delivery loop, the vehicle-visibility projection (faults of hidden
 * vehicles are never sent) and the outbox relay (it publishes the endpoint-disabled records this role
 * writes; the HTTP role runs one too, one relay publishes at a time).
 */
import { Module } from '@nestjs/common';
import { VehicleVisibilityHandler } from '@switchyard/service-kit';
import { WebhookFanoutHandler } from './handlers/webhook-fanout.handler.js';
import { OutboxRelay } from './services/outbox-relay.service.js';
import { WebhookDelivery } from './services/webhook-delivery.service.js';

@Module({
  controllers: [WebhookFanoutHandler, VehicleVisibilityHandler],
  providers: [WebhookDelivery, OutboxRelay],
  exports: [WebhookDelivery],
})
export class WebhookDeliveryModule {}
