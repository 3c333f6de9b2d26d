/**
 * What each product is when a VIN is learned (product-policy.ts): disabled without a vendor, blocked
 * when not licensed, pending otherwise; missing_vin / invalid_vin for every product, never due.
 * Mutation tried: vendorStanding's license check removed → "blocked" fails.
 */
import { describe, expect, it } from '@jest/globals';
import { initialProducts, vendorStanding } from './product-policy.js';

const NOW = new Date('2026-11-26T00:00:00Z');
const vendor = { baseUrl: 'http://127.0.0.1:1', apiKey: 'k', timeoutMs: 1_000, ratePerSecond: 1, burst: 1 };
const byProduct = (resets: ReturnType<typeof initialProducts>['resets']) => Object.fromEntries(resets.map((r) => [r.product, { status: r.status, errorCode: r.errorCode, due: r.dueAt !== null }]));

describe('initialProducts', () => {
  it('disables the vendor products without a vendor; identity is still due', () => {
    const { vin, resets } = initialProducts(' 1hgcm82633a004352', { vendor: undefined, licensed: ['images', 'specifications', 'build'] }, NOW);
    expect(vin).toBe('1HGCM82633A004352');
    expect(byProduct(resets)).toEqual({
      identity: { status: 'pending', errorCode: null, due: true },
      images: { status: 'disabled', errorCode: 'vendor_not_configured', due: false },
      specifications: { status: 'disabled', errorCode: 'vendor_not_configured', due: false },
      build: { status: 'disabled', errorCode: 'vendor_not_configured', due: false },
    });
  });

  it('blocks a product the deployment does not license, asks for the others', () => {
    const { resets } = initialProducts('1HGCM82633A004352', { vendor, licensed: ['images'] }, NOW);
    expect(byProduct(resets)).toMatchObject({
      images: { status: 'pending', due: true },
      specifications: { status: 'blocked', errorCode: 'product_not_licensed', due: false },
      build: { status: 'blocked', errorCode: 'product_not_licensed', due: false },
    });
    expect(vendorStanding({ vendor, licensed: ['images'] }, 'build')).toEqual({ status: 'blocked', errorCode: 'product_not_licensed' });
  });

  it('is missing_vin or invalid_vin for every product, nothing due', () => {
    const none = initialProducts(null, { vendor, licensed: ['images'] }, NOW);
    expect(none.vin).toBeNull();
    expect(none.resets.every((r) => r.status === 'missing_vin' && r.dueAt === null && r.data === null)).toBe(true);
    const bad = initialProducts('1HGCM82633A00435', { vendor, licensed: ['images'] }, NOW);
    expect(bad.resets.every((r) => r.status === 'invalid_vin' && r.errorCode === 'vin_length' && r.dueAt === null)).toBe(true);
    expect(bad.resets.find((r) => r.product === 'identity')?.data).toMatchObject({ vin: '1HGCM82633A00435', vinValid: false, checksum: null });
  });
});
