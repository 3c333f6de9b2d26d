/**
 * The enrichment vendor simulator ("AutoSpec v2", README.md beside this file): listing images,
 * specifications and build sheets per VIN, deterministic from the VIN, on node:http. Its control
 * API (`POST /_sim/state`, `GET /_sim/stats`) lets a test take the vendor down, make VINs unknown,
 * withdraw a product's entitlement or break one product, and count requests.
 * Order per request: route → API key (401) → outage (503) → rate limit (429 + Retry-After) →
 * VIN syntax (400) → unknown VIN (404) → per-product answers.
 */
import { createHash } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export const VENDOR_PRODUCTS = ['images', 'specifications', 'build'] as const;
export type VendorSimProduct = (typeof VENDOR_PRODUCTS)[number];

export interface VendorSimState {
  /** Every request answers 503. */
  outage: boolean;
  /** VINs the vendor does not know (404 vin_unknown). */
  unknownVins: string[];
  /** Products the API key is not entitled to (`not_entitled`). */
  notEntitled: VendorSimProduct[];
  /** Products that answer `error` (a partial failure). */
  failing: VendorSimProduct[];
}

export interface VendorSimulatorOptions {
  apiKey: string;
  port?: number;
  host?: string;
  /** Requests per second before 429 (token bucket, burst = 2 × rate); default 20. */
  ratePerSecond?: number;
}

export interface RunningVendorSimulator {
  url: string;
  /** Replaces parts of the state (the same as POST /_sim/state). */
  set(state: Partial<VendorSimState>): void;
  /** Requests per VIN path since start (the same as GET /_sim/stats). */
  stats(): { requests: number; byVin: Record<string, number>; throttled: number };
  close(): Promise<void>;
}

const VIN = /^[A-HJ-NPR-Z0-9]{17}$/;

/** A number in [min, max] from the VIN and a tag, the same on every run. */
function pick(vin: string, tag: string, min: number, max: number): number {
  const h = createHash('sha256').update(`${tag}:${vin}`).digest();
  return min + (h.readUInt32BE(0) % (max - min + 1));
}

const fmt = (n: number) => n.toLocaleString('en-US');

export function vendorAnswer(vin: string, product: VendorSimProduct): Record<string, unknown> {
  switch (product) {
    case 'images':
      return {
        status: 'ok',
        items: [0, 1, 2].slice(0, pick(vin, 'images', 1, 3)).map((i) => ({ href: `https://images.autospec.example/v2/${vin}/${i}.jpg`, type: 'listing', width: 1280, height: 960 })),
      };
    case 'specifications':
      return {
        status: 'ok',
        title: `${vin.slice(0, 3)} ${vin.slice(3, 8)}`,
        seats: pick(vin, 'seats', 2, 7),
        groups: [
          {
            name: 'Dimensions',
            attributes: [
              { name: 'Length', value: `${fmt(pick(vin, 'length', 4_300, 7_900))} mm` },
              { name: 'Wheelbase', value: `${fmt(pick(vin, 'wheelbase', 2_600, 5_200))} mm` },
              { name: 'Curb weight', value: `${fmt(pick(vin, 'weight', 1_300, 9_800))} kg` },
            ],
          },
          {
            name: 'Engine',
            attributes: [
              { name: 'Displacement', value: `${(pick(vin, 'displacement', 14, 150) / 10).toFixed(1)} L` },
              { name: 'Power', value: `${pick(vin, 'power', 110, 520)} hp @ ${fmt(pick(vin, 'rpm', 18, 65) * 100)} rpm` },
              { name: 'Cylinders', value: pick(vin, 'cylinders', 2, 4) * 2 },
              { name: 'Turbocharged', value: pick(vin, 'turbo', 0, 1) === 1 },
            ],
          },
          { name: 'Fuel', attributes: [{ name: 'Tank capacity', value: `${pick(vin, 'tank', 12, 150)} gal` }, { name: 'Combined economy', value: null }] },
        ],
      };
    case 'build':
      return {
        status: 'ok',
        sheet: {
          trim: ['Base', 'XL', 'XLT', 'Limited', 'Premium'][pick(vin, 'trim', 0, 4)],
          drivetrain: ['RWD', 'FWD', 'AWD', '4WD'][pick(vin, 'drive', 0, 3)],
          transmission: ['6-speed automatic', '8-speed automatic', '10-speed automatic', '12-speed automated manual'][pick(vin, 'transmission', 0, 3)],
          confidence: pick(vin, 'confidence', 60, 100) / 100,
          colors: { exterior: { name: ['Oxford White', 'Agate Black', 'Iconic Silver'][pick(vin, 'ext', 0, 2)] }, interior: { name: 'Medium Earth Gray' } },
          options: { '99P': 'Trailer tow package', '53A': 'Heated mirrors' },
          features: { hud: pick(vin, 'hud', 0, 1) === 1, rain_sensing_wipers: pick(vin, 'rain', 0, 1) === 1 },
        },
      };
  }
}

function send(res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

export async function startVendorSimulator(options: VendorSimulatorOptions): Promise<RunningVendorSimulator> {
  const state: VendorSimState = { outage: false, unknownVins: [], notEntitled: [], failing: [] };
  const counts = { requests: 0, byVin: {} as Record<string, number>, throttled: 0 };
  const rate = options.ratePerSecond ?? 20;
  const bucket = { tokens: rate * 2, at: Date.now() };
  const set = (patch: Partial<VendorSimState>) => Object.assign(state, patch);

  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://vendor');
    if (url.pathname === '/_sim/state' && req.method === 'POST') {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString('utf8')));
      req.on('end', () => {
        try {
          set(JSON.parse(body) as Partial<VendorSimState>);
          send(res, 200, state);
        } catch {
          send(res, 400, { error: 'bad_state' });
        }
      });
      return;
    }
    if (url.pathname === '/_sim/stats') return send(res, 200, counts);
    const match = /^\/v2\/vins\/([^/]+)$/.exec(url.pathname);
    if (!match || req.method !== 'GET') return send(res, 404, { error: 'no_route' });
    counts.requests++;
    if (req.headers['x-api-key'] !== options.apiKey) return send(res, 401, { error: 'unauthorized' });
    if (state.outage) return send(res, 503, { error: 'maintenance' });
    const now = Date.now();
    bucket.tokens = Math.min(rate * 2, bucket.tokens + ((now - bucket.at) / 1_000) * rate);
    bucket.at = now;
    if (bucket.tokens < 1) {
      counts.throttled++;
      return send(res, 429, { error: 'rate_limited' }, { 'retry-after': String(Math.ceil((1 - bucket.tokens) / rate)) });
    }
    bucket.tokens -= 1;
    const vin = decodeURIComponent(match[1] ?? '');
    counts.byVin[vin] = (counts.byVin[vin] ?? 0) + 1;
    if (!VIN.test(vin)) return send(res, 400, { error: 'invalid_vin' });
    if (state.unknownVins.includes(vin)) return send(res, 404, { error: 'vin_unknown' });
    const include = (url.searchParams.get('include') ?? VENDOR_PRODUCTS.join(',')).split(',').filter((p): p is VendorSimProduct => (VENDOR_PRODUCTS as readonly string[]).includes(p));
    const products = Object.fromEntries(
      include.map((p) => [p, state.notEntitled.includes(p) ? { status: 'not_entitled' } : state.failing.includes(p) ? { status: 'error', message: 'temporarily unavailable' } : vendorAnswer(vin, p)]),
    );
    send(res, 200, { vin, products });
  });
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, options.host ?? '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${options.host ?? '127.0.0.1'}:${port}`,
    set,
    stats: () => structuredClone(counts),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
