/** The gateway's module graph: imports and wiring only. */
import { Module } from '@nestjs/common';
import { ContextKitModule } from '@switchyard/service-kit';
import { AnyConsumerKeyGuard, ApplicationGuard, ApplicationOwnerGuard, ConsumerKeyGuard } from './auth/auth.guards.js';
import { AuthService } from './auth/auth.service.js';
import { CredentialChangeListener } from './auth/credential-change-listener.js';
import { PrincipalCache } from './auth/principal-cache.js';
import { RequestRateLimiter } from './auth/request-rate-limiter.js';
import { CatalogController } from './controllers/catalog.controller.js';
import { ConnectionsController } from './controllers/connections.controller.js';
import { ConnectPageController, ConnectPageForms } from './controllers/connect-page.controller.js';
import { ConnectSessionsController } from './controllers/connect-sessions.controller.js';
import { SyncsController } from './controllers/syncs.controller.js';
import { DriversController } from './controllers/drivers.controller.js';
import { FaultsController } from './controllers/faults.controller.js';
import { GroupsController } from './controllers/groups.controller.js';
import { TripsController } from './controllers/trips.controller.js';
import { VehiclesController } from './controllers/vehicles.controller.js';
import { TelemetryController } from './controllers/telemetry.controller.js';
import { UsageController } from './controllers/usage.controller.js';
import { EnrichmentController } from './controllers/enrichment.controller.js';
import { FreshnessController } from './controllers/freshness.controller.js';
import { AuthRepository } from './db/repositories/auth.repository.js';
import { RequestRateRepository } from './db/repositories/request-rate.repository.js';
import { ConnectionRepository } from './db/repositories/connection.repository.js';
import { ConnectionHealthHandler } from './handlers/connection-health.handler.js';
import { ProviderAccessHandler } from './handlers/provider-access.handler.js';
import { ContextClient } from './services/context-client.service.js';
import { OutboxRelay } from './services/outbox-relay.service.js';
import { ConnectSessionRetention } from './services/connect-session-retention.js';
import { ConnectSessionService } from './services/connect-session.service.js';
import { WebhookEndpointsController } from './controllers/webhook-endpoints.controller.js';
import { webhookEndpointsProvider } from './services/webhook-endpoints.provider.js';
import { ConsoleModule } from './console/console.module.js';

@Module({
  imports: [ContextKitModule.forContext({ connectionConfig: false }), ConsoleModule],
  controllers: [CatalogController, ConnectionsController, SyncsController, TripsController, DriversController, GroupsController, VehiclesController, TelemetryController, UsageController, EnrichmentController, FreshnessController, FaultsController, ConnectSessionsController, ConnectPageController, ProviderAccessHandler, ConnectionHealthHandler, WebhookEndpointsController],
  providers: [AuthRepository, RequestRateRepository, RequestRateLimiter, PrincipalCache, CredentialChangeListener, ConnectionRepository, AuthService, ConsumerKeyGuard, AnyConsumerKeyGuard, ApplicationGuard, OutboxRelay, ContextClient, ConnectSessionService, ConnectPageForms, ConnectSessionRetention, ApplicationOwnerGuard, webhookEndpointsProvider],
  exports: [ContextClient, AuthService],
})
export class GatewayModule {}
