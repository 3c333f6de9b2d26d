/**
 * What each product is the moment a VIN is learned (docs/enrichment.md), before any background work:
 * - no VIN → every product `missing_vin`; an invalid VIN → every product `invalid_vin` (the reason
 *   as errorCode; identity carries the verdict) — never decoded, never sent to the vendor;
 * - a valid VIN: identity `pending` (the worker decodes it); a vendor product `disabled` without a
 *   configured vendor, `blocked` when not licensed, else `pending` (the worker asks the vendor).
 */
import { checkVin } from '@switchyard/domain';
import type { EnrichmentProduct } from '@switchyard/messaging';
import type { EnrichmentSettings, VendorProduct } from '../config.js';
import { VENDOR_PRODUCTS } from '../config.js';
import type { ProductReset } from '../db/repositories/enrichment.repository.js';
import { IDENTITY_ADAPTER_VERSION, IDENTITY_SOURCE, refusedIdentity } from '../identity/vin-identity.decoder.js';
import { VENDOR_ADAPTER_VERSION, VENDOR_SOURCE } from './vendor-source.js';

const value = (product: EnrichmentProduct, status: ProductReset['status'], errorCode: string | null, data: unknown = null, dueAt: Date | null = null): ProductReset => ({
  product,
  status,
  data,
  source: product === 'identity' ? IDENTITY_SOURCE : VENDOR_SOURCE,
  adapterVersion: product === 'identity' ? IDENTITY_ADAPTER_VERSION : VENDOR_ADAPTER_VERSION,
  fetchedAt: null,
  errorCode,
  dueAt,
});

/** The vendor product's standing in this deployment: undefined when it may be asked. */
export function vendorStanding(settings: Pick<EnrichmentSettings, 'vendor' | 'licensed'>, product: VendorProduct): { status: 'disabled' | 'blocked'; errorCode: string } | undefined {
  if (settings.vendor === undefined) return { status: 'disabled', errorCode: 'vendor_not_configured' };
  if (!settings.licensed.includes(product)) return { status: 'blocked', errorCode: 'product_not_licensed' };
  return undefined;
}

export function initialProducts(rawVin: string | null, settings: Pick<EnrichmentSettings, 'vendor' | 'licensed'>, now: Date): { vin: string | null; resets: ProductReset[] } {
  const check = checkVin(rawVin);
  if (check.status === 'missing') return { vin: null, resets: (['identity', ...VENDOR_PRODUCTS] as const).map((p) => value(p, 'missing_vin', null)) };
  if (check.status === 'invalid') {
    return { vin: check.vin, resets: [value('identity', 'invalid_vin', check.reason, refusedIdentity(check.vin, check.checksum)), ...VENDOR_PRODUCTS.map((p) => value(p, 'invalid_vin', check.reason))] };
  }
  return {
    vin: check.vin,
    resets: [
      value('identity', 'pending', null, null, now),
      ...VENDOR_PRODUCTS.map((p) => {
        const standing = vendorStanding(settings, p);
        return standing ? value(p, standing.status, standing.errorCode) : value(p, 'pending', null, null, now);
      }),
    ],
  };
}
