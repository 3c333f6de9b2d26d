/**
 * The enrichment context. Vehicle enrichment products (identity, images, specifications, build) from VIN events.
 * Exports its service definition and start function for main.ts (one service per process) and the
 * sandbox launcher (every service in one process).
 */
import { startService, type RunningService, type ServiceDefinition, type StartOptions } from '@switchyard/service-kit';
import { EnrichmentModule } from './app.module.js';
import { ENRICHMENT_SETTINGS, loadEnrichmentSettings } from './config.js';
import { enrichmentEntities } from './db/entities/index.js';
import { enrichmentMigrations } from './db/migrations/index.js';

export const enrichmentService: ServiceDefinition = {
  service: 'enrichment',
  entities: enrichmentEntities,
  migrations: enrichmentMigrations,
  module: EnrichmentModule,
};

export interface StartEnrichmentOptions extends StartOptions {
  /** The enrichment vendor's base URL (the launcher passes its simulator's); wins over ENRICHMENT_VENDOR_BASE_URL. */
  vendorBaseUrl?: string;
  /** Environment to read the enrichment variables from (default process.env; config.ts). */
  env?: NodeJS.ProcessEnv;
}

export function startEnrichment({ vendorBaseUrl, env = process.env, ...options }: StartEnrichmentOptions): Promise<RunningService> {
  const settings = loadEnrichmentSettings(env, { vendorBaseUrl });
  return startService(enrichmentService, { ...options, providers: [...(options.providers ?? []), { provide: ENRICHMENT_SETTINGS, useValue: settings }] });
}

export { loadEnrichmentSettings, enrichmentEnvSchema, ENRICHMENT_SETTINGS, type EnrichmentSettings } from './config.js';
export { VinIdentityDecoder, type IdentityOutcome } from './identity/vin-identity.decoder.js';
export { VpicDatabase, unpackVpic } from './identity/vpic-database.js';
export { VendorClient } from './vendor/vendor.client.js';
