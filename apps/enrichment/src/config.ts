/**
 * enrichment environment, parsed once at start (libs/service-kit loadConfig; docs/enrichment.md):
 * - ENRICHMENT_VENDOR_BASE_URL: the enrichment vendor's API (the only outbound host); unset → the
 *   vendor products are `disabled` (errorCode `vendor_not_configured`). The sandbox launcher and
 *   the tests pass their simulator's URL (`StartEnrichmentOptions.vendorBaseUrl` wins);
 * - ENRICHMENT_VENDOR_API_KEY: its key (a secret: never logged);
 * - ENRICHMENT_VENDOR_PRODUCTS: the products this deployment licenses (comma list of images,
 *   specifications, build; default all three); one not listed is `blocked` (`product_not_licensed`);
 * - ENRICHMENT_CACHE_TTL_SECONDS: how long a vendor answer is reused for a VIN (default 30 days);
 * - ENRICHMENT_VENDOR_RATE_PER_SECOND / _BURST: the vendor request budget (default 5/s, burst 10);
 * - ENRICHMENT_RETRY_SECONDS: the pause before a failed product is asked again (default 300 s).
 */
import { baseEnvSchema, loadConfig } from '@switchyard/service-kit';
import { z } from 'zod';

export const VENDOR_PRODUCTS = ['images', 'specifications', 'build'] as const;
export type VendorProduct = (typeof VENDOR_PRODUCTS)[number];

const httpUrl = z
  .string()
  .refine((value) => URL.canParse(value) && ['http:', 'https:'].includes(new URL(value).protocol), 'an http(s) URL')
  .transform((value) => value.replace(/\/+$/, ''));

export const enrichmentEnvSchema = baseEnvSchema.extend({
  ENRICHMENT_VENDOR_BASE_URL: httpUrl.optional(),
  ENRICHMENT_VENDOR_API_KEY: z.string().min(1).optional(),
  ENRICHMENT_VENDOR_PRODUCTS: z
    .string()
    .default(VENDOR_PRODUCTS.join(','))
    .transform((v) => v.split(',').map((s) => s.trim()).filter((s) => s !== ''))
    .pipe(z.array(z.enum(VENDOR_PRODUCTS))),
  ENRICHMENT_CACHE_TTL_SECONDS: z.coerce.number().int().min(0).max(31_536_000).default(2_592_000),
  ENRICHMENT_VENDOR_RATE_PER_SECOND: z.coerce.number().positive().max(1_000).default(5),
  ENRICHMENT_VENDOR_BURST: z.coerce.number().int().min(1).max(10_000).default(10),
  ENRICHMENT_VENDOR_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(10_000),
  ENRICHMENT_RETRY_SECONDS: z.coerce.number().int().min(1).max(86_400).default(300),
  ENRICHMENT_POLL_MS: z.coerce.number().int().min(10).max(60_000).default(500),
});

export interface EnrichmentSettings {
  vendor: { baseUrl: string; apiKey: string | undefined; timeoutMs: number; ratePerSecond: number; burst: number } | undefined;
  licensed: readonly VendorProduct[];
  cacheTtlMs: number;
  retryMs: number;
  pollMs: number;
}

export const ENRICHMENT_SETTINGS = Symbol('switchyard.enrichment.settings');

export function loadEnrichmentSettings(env: NodeJS.ProcessEnv, overrides: { vendorBaseUrl?: string } = {}): EnrichmentSettings {
  const parsed = loadConfig(enrichmentEnvSchema, { ...env, ...(overrides.vendorBaseUrl ? { ENRICHMENT_VENDOR_BASE_URL: overrides.vendorBaseUrl } : {}) });
  const baseUrl = parsed.ENRICHMENT_VENDOR_BASE_URL;
  return {
    vendor:
      baseUrl === undefined
        ? undefined
        : { baseUrl, apiKey: parsed.ENRICHMENT_VENDOR_API_KEY, timeoutMs: parsed.ENRICHMENT_VENDOR_TIMEOUT_MS, ratePerSecond: parsed.ENRICHMENT_VENDOR_RATE_PER_SECOND, burst: parsed.ENRICHMENT_VENDOR_BURST },
    licensed: parsed.ENRICHMENT_VENDOR_PRODUCTS,
    cacheTtlMs: parsed.ENRICHMENT_CACHE_TTL_SECONDS * 1_000,
    retryMs: parsed.ENRICHMENT_RETRY_SECONDS * 1_000,
    pollMs: parsed.ENRICHMENT_POLL_MS,
  };
}
