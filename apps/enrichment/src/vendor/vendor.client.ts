/**
 * The enrichment vendor's API client (the "AutoSpec v2" dialect, sandbox/src/enrichment-vendor/README.md):
 * `GET {base}/v2/vins/{vin}?include=images,specifications,build` with `X-Api-Key`, answered per
 * product. Only the configured base URL is ever called (the URL is built from it and the VIN, which
 * is checked before: 17 characters of 0-9/A-Z).
 * Outcomes, each product on its own:
 * - 200 with `products.<name>.status` `ok` → the product's data, mapped to the public shape (units
 *   kept as the vendor's text); `not_found` → missing; `not_entitled` → blocked; `error` → failed;
 * - 404 `vin_unknown` → every product asked is missing;
 * - 401/403 → failed `vendor_unauthorized`; 429 → failed `vendor_rate_limited` with Retry-After;
 *   5xx, a timeout, a refused connection or an unparsable body → failed `vendor_unavailable`.
 */
import type { VehicleBuildV1, VehicleImagesV1, VehicleSpecificationsV1 } from '@switchyard/messaging';
import { z } from 'zod';
import type { VendorProduct } from '../config.js';

export type VendorAnswer =
  | { status: 'available'; data: VehicleImagesV1 | VehicleSpecificationsV1 | VehicleBuildV1 }
  | { status: 'missing'; errorCode: 'vin_unknown' }
  | { status: 'blocked'; errorCode: 'vendor_not_entitled' }
  | { status: 'failed'; errorCode: string; retryAfterMs?: number };

export interface VendorClientOptions {
  baseUrl: string;
  apiKey: string | undefined;
  timeoutMs: number;
  fetch?: typeof fetch;
}

const productState = z.object({ status: z.enum(['ok', 'not_found', 'not_entitled', 'error']) }).loose();
const imagesBody = z.object({ items: z.array(z.object({ href: z.url(), type: z.string() }).loose()) }).loose();
const specsBody = z
  .object({
    title: z.string().nullable().optional(),
    seats: z.number().int().min(0).nullable().optional(),
    groups: z.array(z.object({ name: z.string(), attributes: z.array(z.object({ name: z.string(), value: z.union([z.string(), z.number(), z.boolean(), z.null()]) }).loose()) }).loose()),
  })
  .loose();
const buildBody = z
  .object({
    sheet: z
      .object({
        make: z.string().optional(),
        model: z.string().optional(),
        manufacturer: z.string().optional(),
        trim: z.string().optional(),
        series: z.string().optional(),
        style: z.string().optional(),
        drivetrain: z.string().optional(),
        engine: z.string().optional(),
        transmission: z.string().optional(),
        year: z.number().int().optional(),
        confidence: z.number().min(0).max(1).optional(),
        colors: z.object({ interior: z.record(z.string(), z.string()).optional(), exterior: z.record(z.string(), z.string()).optional() }).loose().optional(),
        options: z.record(z.string(), z.string()).optional(),
        features: z.object({ hud: z.boolean().optional(), rain_sensing_wipers: z.boolean().optional() }).loose().optional(),
      })
      .loose(),
  })
  .loose();
const answerBody = z.object({ vin: z.string(), products: z.record(z.string(), z.unknown()) }).loose();

const unavailable: VendorAnswer = { status: 'failed', errorCode: 'vendor_unavailable' };

function drop<T extends Record<string, unknown>>(o: T): T {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;
}

/** Maps one product's vendor body to its public data; undefined when the body does not parse. */
export function mapProduct(product: VendorProduct, vin: string, body: unknown): VehicleImagesV1 | VehicleSpecificationsV1 | VehicleBuildV1 | undefined {
  switch (product) {
    case 'images': {
      const parsed = imagesBody.safeParse(body);
      return parsed.success ? { images: parsed.data.items.map((i) => ({ url: i.href, kind: 'vin_listing' as const, source: 'autospec' })) } : undefined;
    }
    case 'specifications': {
      const parsed = specsBody.safeParse(body);
      if (!parsed.success) return undefined;
      const categories = Object.fromEntries(parsed.data.groups.map((g) => [g.name, Object.fromEntries(g.attributes.map((a) => [a.name, a.value]))]));
      return { vin, name: parsed.data.title ?? null, seatingCapacity: parsed.data.seats ?? null, measurementFormat: 'provider_text', categories };
    }
    case 'build': {
      const parsed = buildBody.safeParse(body);
      if (!parsed.success) return undefined;
      const { colors, features, options, ...sheet } = parsed.data.sheet;
      return drop({
        vin,
        make: sheet.make,
        model: sheet.model,
        manufacturer: sheet.manufacturer,
        trim: sheet.trim,
        series: sheet.series,
        style: sheet.style,
        drivetrain: sheet.drivetrain,
        engine: sheet.engine,
        transmission: sheet.transmission,
        year: sheet.year,
        confidence: sheet.confidence,
        interiorColor: colors?.interior,
        exteriorColor: colors?.exterior,
        options,
        headUpDisplay: features?.hud,
        rainSensingWipers: features?.rain_sensing_wipers,
      });
    }
  }
}

function retryAfterMs(header: string | null): number | undefined {
  if (header === null) return undefined;
  const seconds = Number(header);
  return Number.isFinite(seconds) && seconds >= 0 ? seconds * 1_000 : undefined;
}

export class VendorClient {
  private readonly fetch: typeof fetch;

  constructor(private readonly options: VendorClientOptions) {
    this.fetch = options.fetch ?? globalThis.fetch;
  }

  /** Asks the vendor for `products` of a (valid, upper-case) VIN; one answer per product asked. */
  async lookup(vin: string, products: readonly VendorProduct[]): Promise<Record<VendorProduct, VendorAnswer>> {
    const all = (answer: VendorAnswer) => Object.fromEntries(products.map((p) => [p, answer])) as Record<VendorProduct, VendorAnswer>;
    if (!/^[A-HJ-NPR-Z0-9]{17}$/.test(vin)) throw new RangeError('the vendor is only asked about valid VINs');
    const url = `${this.options.baseUrl}/v2/vins/${vin}?include=${products.join(',')}`;
    let response: Response;
    let body: unknown;
    try {
      response = await this.fetch(url, { headers: { accept: 'application/json', ...(this.options.apiKey ? { 'x-api-key': this.options.apiKey } : {}) }, signal: AbortSignal.timeout(this.options.timeoutMs), redirect: 'error' });
      body = await response.json().catch(() => undefined);
    } catch {
      return all(unavailable);
    }
    if (response.status === 404) return all({ status: 'missing', errorCode: 'vin_unknown' });
    if (response.status === 401 || response.status === 403) return all({ status: 'failed', errorCode: 'vendor_unauthorized' });
    if (response.status === 429) {
      const after = retryAfterMs(response.headers.get('retry-after'));
      return all({ status: 'failed', errorCode: 'vendor_rate_limited', ...(after === undefined ? {} : { retryAfterMs: after }) });
    }
    const parsed = answerBody.safeParse(body);
    if (response.status !== 200 || !parsed.success) return all(unavailable);
    const answers = {} as Record<VendorProduct, VendorAnswer>;
    for (const product of products) {
      const state = productState.safeParse(parsed.data.products[product]);
      if (!state.success) {
        answers[product] = unavailable;
        continue;
      }
      if (state.data.status === 'not_found') answers[product] = { status: 'missing', errorCode: 'vin_unknown' };
      else if (state.data.status === 'not_entitled') answers[product] = { status: 'blocked', errorCode: 'vendor_not_entitled' };
      else if (state.data.status === 'error') answers[product] = { status: 'failed', errorCode: 'vendor_product_error' };
      else {
        const data = mapProduct(product, vin, state.data);
        answers[product] = data === undefined ? { status: 'failed', errorCode: 'vendor_bad_response' } : { status: 'available', data };
      }
    }
    return answers;
  }
}
