/** WebhookEndpointsService for the gateway's Nest modules: the runtime's ORM and environment, the master key, the rotation overlap. */
import type { Provider } from '@nestjs/common';
import { RUNTIME, type ServiceRuntime } from '@switchyard/service-kit';
import { GATEWAY_SETTINGS, type GatewaySettings } from '../config.js';
import { SecretBox } from './secret-box.js';
import { WebhookEndpointsService } from './webhook-endpoints.service.js';

export const webhookEndpointsProvider: Provider = {
  provide: WebhookEndpointsService,
  inject: [RUNTIME, GATEWAY_SETTINGS],
  useFactory: (runtime: ServiceRuntime, settings: GatewaySettings) =>
    new WebhookEndpointsService(runtime.orm, new SecretBox(settings.masterKey), { environment: runtime.environment, secretOverlapMs: settings.webhooks.secretOverlapMs }),
};
