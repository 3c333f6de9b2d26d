/**
 * The gateway service: its definition (schema, entities, migrations, module) and `startGateway`,
 * used by main.ts (one service per process) and by the sandbox launcher (all in one process).
 */
import { GROUP_DIRECTORY, RESPONSE_BYTE_LIMIT } from '@switchyard/contracts';
import { loadConfig, startService, type RunningService, type ServiceDefinition, type StartOptions } from '@switchyard/service-kit';
import { GATEWAY_SETTINGS, gatewayEnvSchema, WEBHOOK_DEFAULTS, type GatewayEnv, type GatewaySettings, type WebhookSettings } from './config.js';
import { loadKeyMaterial } from './services/key-material.js';
import { GatewayModule } from './app.module.js';
import { WebhookDeliveryModule } from './webhook-delivery.module.js';
import { DeadLettersModule } from './dead-letters.module.js';
import { gatewayEntities } from './db/entities/index.js';
import { gatewayMigrations } from './db/migrations/index.js';
import { configureGatewayHttp } from './http/configure.js';
import { gatewayFastifyOptions } from './http/request-context.js';
import { installResponseEncoding } from './services/response-encoding.js';

export const gatewayService: ServiceDefinition = {
  service: 'gateway',
  entities: gatewayEntities,
  migrations: gatewayMigrations,
  module: GatewayModule,
};

export interface StartGatewayOptions extends Omit<StartOptions, 'configure'> {
  /** Sandbox launcher passes its generated keys; otherwise they come from the environment. */
  gatewaySettings?: Partial<Omit<GatewaySettings, 'webhooks'>> & { webhooks?: Partial<WebhookSettings> };
  /** Environment to read RPC_TIMEOUT_MS, BODY_LIMIT_BYTES and key material from (default process.env). */
  env?: NodeJS.ProcessEnv;
}

export function startGateway(options: StartGatewayOptions): Promise<RunningService> {
  return startService(gatewayService, gatewayStartOptions(options));
}

/** The start options the gateway needs on top of a plain service (tests reuse them with extra modules). */
export function gatewayStartOptions({ gatewaySettings, env: sourceEnv = process.env, ...options }: StartGatewayOptions): StartOptions {
  const { settings, env } = gatewaySettingsOf(gatewaySettings, sourceEnv, options.environment);
  return {
    ...options,
    http: options.http && { bodyLimit: env.BODY_LIMIT_BYTES, ...options.http },
    // The public port never serves /metrics: only an internal listener the caller names does
    // (main.ts: METRICS_PORT), and without one it is served nowhere.
    metrics: typeof options.metrics === 'object' ? options.metrics : 'none',
    providers: [{ provide: GATEWAY_SETTINGS, useValue: settings }],
    fastify: { ...gatewayFastifyOptions, ...options.fastify },
    bodyParser: false,
    configure: (app, runtime) => {
      configureGatewayHttp(app, runtime);
      // ETag, Cache-Control and compression of every /v1 response (services/response-encoding.ts).
      installResponseEncoding(app.getHttpAdapter().getInstance());
    },
  };
}

/**
 * The gateway's webhook delivery role (decision 0042): the same context, schema and settings in a
 * process of its own — the fan-out consumers, the delivery loop, the vehicle-visibility copy and
 * the outbox relay; no HTTP API (its HEALTH_PORT serves /healthz, /readyz and /metrics).
 */
export const webhookDeliveryService: ServiceDefinition = {
  service: 'gateway',
  role: 'webhook-delivery',
  entities: gatewayEntities,
  migrations: gatewayMigrations,
  module: WebhookDeliveryModule,
};

export function startWebhookDelivery({ gatewaySettings, env: sourceEnv = process.env, ...options }: StartGatewayOptions): Promise<RunningService> {
  const { settings } = gatewaySettingsOf(gatewaySettings, sourceEnv, options.environment);
  return startService(webhookDeliveryService, { ...options, providers: [{ provide: GATEWAY_SETTINGS, useValue: settings }] });
}

/**
 * The gateway's dead-letter role (decision 0046): the dead-letter operations the operator console
 * asks for, served over request/reply by a process whose NATS user (`dead-letters`) alone may read
 * the DLQ stream and publish replays, so the public gateway needs neither right. It reads no table
 * and no gateway secret; the gateway schema only backs the shared readiness check.
 */
export const deadLettersService: ServiceDefinition = {
  service: 'gateway',
  role: 'dead-letters',
  entities: gatewayEntities,
  migrations: gatewayMigrations,
  module: DeadLettersModule,
};

export function startDeadLetters(options: StartOptions): Promise<RunningService> {
  return startService(deadLettersService, options);
}

/** The gateway's settings from its environment and key material, with a caller's (launcher, tests) in front. */
function gatewaySettingsOf(gatewaySettings: StartGatewayOptions['gatewaySettings'], sourceEnv: NodeJS.ProcessEnv, environment: StartOptions['environment']): { settings: GatewaySettings; env: GatewayEnv } {
  const options = { environment };
  const keys =
    gatewaySettings?.masterKey && gatewaySettings.cursorSecret
      ? { masterKey: gatewaySettings.masterKey, cursorSecret: gatewaySettings.cursorSecret }
      : loadKeyMaterial(sourceEnv, { createIfMissing: options.environment === 'sandbox' });
  const env = loadConfig(gatewayEnvSchema, { ...sourceEnv, SWITCHYARD_ENV: options.environment, SWITCHYARD_MASTER_KEY: keys.masterKey, CURSOR_SECRET: keys.cursorSecret });
  const settings: GatewaySettings = {
    rpcTimeoutMs: gatewaySettings?.rpcTimeoutMs ?? env.RPC_TIMEOUT_MS,
    responseValidation: gatewaySettings?.responseValidation ?? env.RESPONSE_VALIDATION,
    masterKey: keys.masterKey,
    cursorSecret: keys.cursorSecret,
    responseByteLimit: gatewaySettings?.responseByteLimit ?? RESPONSE_BYTE_LIMIT,
    groupDirectoryLimits: gatewaySettings?.groupDirectoryLimits ?? { ...GROUP_DIRECTORY },
    connectSessionRetentionMs: gatewaySettings?.connectSessionRetentionMs ?? env.CONNECT_SESSION_RETENTION_DAYS * 86_400_000,
    providerBaseUrls: {
      samsara: sourceEnv.SAMSARA_BASE_URL || 'https://api.samsara.com',
      motive: sourceEnv.MOTIVE_BASE_URL || 'https://api.gomotive.com',
      geotab: sourceEnv.GEOTAB_BASE_URL || 'https://my.geotab.com',
      ...gatewaySettings?.providerBaseUrls,
    },
    ...(gatewaySettings?.publicUrl || sourceEnv.PUBLIC_URL ? { publicUrl: gatewaySettings?.publicUrl || sourceEnv.PUBLIC_URL } : {}),
    oauth: { ...oauthClientsFrom(sourceEnv), ...gatewaySettings?.oauth },
    ...(gatewaySettings?.requestRate ? { requestRate: gatewaySettings.requestRate } : {}),
    requestRateSyncMs: gatewaySettings?.requestRateSyncMs ?? env.REQUEST_RATE_SYNC_MS,
    principalCacheTtlMs: gatewaySettings?.principalCacheTtlMs ?? env.PRINCIPAL_CACHE_TTL_MS,
    webhooks: webhookSettingsFrom(env, gatewaySettings?.webhooks),
  };
  return { settings, env };
}

/** The webhook settings of the environment (WEBHOOK_*), with a caller's (tests, launcher) in front. */
export function webhookSettingsFrom(env: GatewayEnv, given: Partial<WebhookSettings> = {}): WebhookSettings {
  return {
    retryScheduleMs: env.WEBHOOK_RETRY_SCHEDULE_MS ?? WEBHOOK_DEFAULTS.retryScheduleMs,
    disableAfterMs: env.WEBHOOK_DISABLE_AFTER_MS,
    attemptTimeoutMs: env.WEBHOOK_TIMEOUT_MS,
    secretOverlapMs: env.WEBHOOK_SECRET_OVERLAP_MS,
    concurrency: env.WEBHOOK_CONCURRENCY,
    pollMs: env.WEBHOOK_POLL_MS,
    ...given,
  };
}

/** OAuth applications from the environment (SAMSARA_/MOTIVE_OAUTH_*); a provider without a client id and secret has none. */
function oauthClientsFrom(env: NodeJS.ProcessEnv): NonNullable<GatewaySettings['oauth']> {
  const samsaraBase = (env.SAMSARA_BASE_URL || 'https://api.samsara.com').replace(/\/+$/, '');
  const clients: NonNullable<GatewaySettings['oauth']> = {};
  if (env.SAMSARA_OAUTH_CLIENT_ID && env.SAMSARA_OAUTH_CLIENT_SECRET) {
    clients.samsara = {
      clientId: env.SAMSARA_OAUTH_CLIENT_ID,
      clientSecret: env.SAMSARA_OAUTH_CLIENT_SECRET,
      authorizeUrl: env.SAMSARA_OAUTH_AUTHORIZE_URL || `${samsaraBase}/oauth2/authorize`,
      tokenUrl: env.SAMSARA_OAUTH_TOKEN_URL || `${samsaraBase}/oauth2/token`,
    };
  }
  if (env.MOTIVE_OAUTH_CLIENT_ID && env.MOTIVE_OAUTH_CLIENT_SECRET) {
    clients.motive = {
      clientId: env.MOTIVE_OAUTH_CLIENT_ID,
      clientSecret: env.MOTIVE_OAUTH_CLIENT_SECRET,
      authorizeUrl: env.MOTIVE_OAUTH_AUTHORIZE_URL || 'https://gomotive.com/oauth/authorize',
      tokenUrl: env.MOTIVE_OAUTH_TOKEN_URL || 'https://keeptruckin.com/oauth/token',
    };
  }
  return clients;
}

export { GATEWAY_MAIN_ENV, GATEWAY_METRICS_PORT, type OAuthClient } from './config.js';
export { buildOpenApiDocument } from './openapi/document.js';
export { renderOpenApi } from './openapi/render.js';
export { GatewayModule } from './app.module.js';
export { WebhookDeliveryModule } from './webhook-delivery.module.js';
export { WebhookDelivery } from './services/webhook-delivery.service.js';
export { WebhookEndpointsService } from './services/webhook-endpoints.service.js';
export { DEAD_LETTERS_MAIN_ENV, WEBHOOK_DELIVERY_MAIN_ENV } from './config.js';
export { ApiError } from './http/api-error.js';
export { routeTableOf } from './http/route-table.js';
export { ContextClient } from './services/context-client.service.js';
export { OutboxRelay } from './services/outbox-relay.service.js';
export { ConnectSessionRetention } from './services/connect-session-retention.js';
export { ApplicationAuth, ConsumerAuth, ConsumerKeyOnly } from './auth/auth.guards.js';
export { ConnectionsAdmin, type ConnectionConfigPatch } from './services/connections-admin.service.js';
export { AdminError, CredentialsAdmin, type Issued } from './services/credentials-admin.service.js';
export { credentialExists } from './services/credential-lookup.js';
export { committingChange } from './services/credential-change-hooks.js';
export { loadKeyMaterial, type KeyMaterial } from './services/key-material.js';
export { SecretBox } from './services/secret-box.js';
export { requestToken, type TokenGrant, type TokenOutcome } from './services/connect-session-oauth.js';
export { grantCredentials } from './services/oauth-refresh.js';
export { operatorMain, runOperator } from './cli/operator.js';
export { READ_ENVELOPE_RESERVE } from './services/read-query.js';
