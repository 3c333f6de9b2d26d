/**
 * The enrichment vendor client (apps/enrichment/src/vendor/vendor.client.ts) against the AutoSpec
 * simulator (sandbox/src/enrichment-vendor) over real HTTP: each product's answer on its own, every
 * failure mapped to its code, Retry-After honoured, units kept as the vendor's text, and no request
 * but to the configured base URL. Mutation tried: the 429 branch removed (a throttled answer becomes
 * `vendor_unavailable` without retryAfterMs) → "429" fails.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { VendorClient } from '@switchyard/enrichment';
import { startVendorSimulator, type RunningVendorSimulator } from '@switchyard/sandbox';

const KEY = 'vendor-contract-key';
const VIN = '1FTEW1EP2LFA12345';
let vendor: RunningVendorSimulator;
let client: VendorClient;

beforeAll(async () => {
  vendor = await startVendorSimulator({ apiKey: KEY, ratePerSecond: 5 });
  client = new VendorClient({ baseUrl: vendor.url, apiKey: KEY, timeoutMs: 5_000 });
});
afterAll(() => vendor?.close());

describe('VendorClient ↔ AutoSpec simulator', () => {
  it('maps every product: image URLs, specifications as the vendor’s text, the build sheet', async () => {
    const answers = await client.lookup(VIN, ['images', 'specifications', 'build']);
    expect(answers.images).toEqual({ status: 'available', data: { images: expect.arrayContaining([{ url: `https://images.autospec.example/v2/${VIN}/0.jpg`, kind: 'vin_listing', source: 'autospec' }]) } });
    expect(answers.specifications).toMatchObject({ status: 'available', data: { vin: VIN, measurementFormat: 'provider_text', seatingCapacity: expect.any(Number) } });
    const specs = (answers.specifications as { data: { categories: Record<string, Record<string, unknown>> } }).data.categories;
    expect(specs['Engine']?.['Power']).toMatch(/^\d+ hp @ [\d,]+ rpm$/);
    expect(specs['Fuel']?.['Combined economy']).toBeNull();
    expect(answers.build).toMatchObject({ status: 'available', data: { vin: VIN, trim: expect.any(String), options: { '99P': 'Trailer tow package' }, headUpDisplay: expect.any(Boolean) } });
  });

  it('keeps each product apart: not entitled → blocked, a product error → failed, the others available', async () => {
    vendor.set({ notEntitled: ['build'], failing: ['specifications'] });
    const answers = await client.lookup(VIN, ['images', 'specifications', 'build']);
    vendor.set({ notEntitled: [], failing: [] });
    expect(answers.images.status).toBe('available');
    expect(answers.specifications).toEqual({ status: 'failed', errorCode: 'vendor_product_error' });
    expect(answers.build).toEqual({ status: 'blocked', errorCode: 'vendor_not_entitled' });
  });

  it('maps an unknown VIN, an outage, a wrong key, an unreachable vendor', async () => {
    vendor.set({ unknownVins: [VIN] });
    expect((await client.lookup(VIN, ['images'])).images).toEqual({ status: 'missing', errorCode: 'vin_unknown' });
    vendor.set({ unknownVins: [], outage: true });
    expect((await client.lookup(VIN, ['images'])).images).toEqual({ status: 'failed', errorCode: 'vendor_unavailable' });
    vendor.set({ outage: false });
    const wrongKey = new VendorClient({ baseUrl: vendor.url, apiKey: 'wrong', timeoutMs: 5_000 });
    expect((await wrongKey.lookup(VIN, ['images'])).images).toEqual({ status: 'failed', errorCode: 'vendor_unauthorized' });
    const closed = new VendorClient({ baseUrl: 'http://127.0.0.1:9', apiKey: KEY, timeoutMs: 2_000 });
    expect((await closed.lookup(VIN, ['images'])).images).toEqual({ status: 'failed', errorCode: 'vendor_unavailable' });
  });

  it('429: rate_limited with the vendor’s Retry-After', async () => {
    let throttled: unknown;
    for (let i = 0; i < 30 && throttled === undefined; i++) {
      const answer = (await client.lookup(VIN, ['images'])).images;
      if (answer.status === 'failed') throttled = answer;
    }
    expect(throttled).toEqual({ status: 'failed', errorCode: 'vendor_rate_limited', retryAfterMs: expect.any(Number) });
  });

  it('refuses to put anything but a valid VIN into the URL', async () => {
    await expect(client.lookup('../../admin?x=1', ['images'])).rejects.toThrow(RangeError);
    await expect(client.lookup('1HGCM82633AO04352', ['images'])).rejects.toThrow(RangeError);
  });
});
