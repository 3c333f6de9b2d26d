/**
 * Where a provider request may go (SSRF guard; decision 0023, docs/reliability.md "Hostile
 * upstreams"). A request leaves only through `egressFetch`, a fetch-shaped transport on node:http(s)
 * whose DNS lookup is ours, so the addresses are checked at the moment the socket connects (no
 * second resolution an attacker could rebind).
 *
 * - `production`: the URL must be https on an allow-listed provider host (exact, or `*.suffix` for
 *   any sub-domain: Geotab's `my512.geotab.com`), never an IP literal, and every address its name
 *   resolves to must be public — loopback, private (RFC 1918, fc00::/7), link-local (169.254/16,
 *   fe80::/10), CGNAT (100.64/10), unspecified, multicast, reserved, NAT64/6to4 and cloud metadata
 *   addresses are refused, and one refused address refuses the name.
 * - `sandbox`: no allow-list and no address check, so the simulators on loopback keep working. Only
 *   a deployment with `SWITCHYARD_ENV=sandbox` gets it (and tests and simulators that build adapters
 *   directly, which pass no policy).
 * A refusal is `EgressRefusedError`, which the HTTP client turns into a final (never retried)
 * `provider_config_invalid`. Redirects are the HTTP client's (same origin only).
 */
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { BlockList, isIP, type LookupFunction } from 'node:net';
import { Readable } from 'node:stream';
import type { Provider } from '@switchyard/domain';

export type EgressMode = 'sandbox' | 'production';

/** DNS resolution to every address of a name (node:dns `lookup` with `all: true`); injectable so tests never leave loopback. */
export type EgressLookup = (hostname: string) => Promise<readonly { address: string; family: number }[]>;

export interface EgressPolicy {
  readonly mode: EgressMode;
  /** Host names allowed in production: exact (`api.samsara.com`) or `*.geotab.com` for any sub-domain. */
  readonly allowedHosts: readonly string[];
  readonly lookup?: EgressLookup;
}

/** The real providers' API hosts (/work/shared/providers: samsara.md, motive.md, geotab.md). */
export const PROVIDER_HOSTS: Readonly<Record<Provider, readonly string[]>> = {
  samsara: ['api.samsara.com', 'api.eu.samsara.com'],
  motive: ['api.gomotive.com', 'api.keeptruckin.com'],
  geotab: ['my.geotab.com', '*.geotab.com'],
};

/** The policy of a deployment environment for one provider's requests. */
export function egressPolicyFor(provider: Provider, environment: EgressMode, lookup?: EgressLookup): EgressPolicy {
  return { mode: environment, allowedHosts: PROVIDER_HOSTS[provider], ...(lookup ? { lookup } : {}) };
}

/** No allow-list, no address check: simulators on loopback (what a policy-less client uses). */
export const SANDBOX_EGRESS: EgressPolicy = { mode: 'sandbox', allowedHosts: [] };

export class EgressRefusedError extends Error {
  constructor(readonly reason: string) {
    super(`egress refused: ${reason}`);
    this.name = 'EgressRefusedError';
  }
}

/** Known cloud metadata endpoints, named before their ranges. */
const METADATA = new Set(['169.254.169.254', '169.254.170.2', '100.100.100.200', '192.0.0.192', 'fd00:ec2::254']);

const RANGES: readonly (readonly [string, number, 'ipv4' | 'ipv6', string])[] = [
  ['0.0.0.0', 8, 'ipv4', 'unspecified'],
  ['10.0.0.0', 8, 'ipv4', 'private'],
  ['100.64.0.0', 10, 'ipv4', 'cgnat'],
  ['127.0.0.0', 8, 'ipv4', 'loopback'],
  ['169.254.0.0', 16, 'ipv4', 'link-local'],
  ['172.16.0.0', 12, 'ipv4', 'private'],
  ['192.0.0.0', 24, 'ipv4', 'special-purpose'],
  ['192.168.0.0', 16, 'ipv4', 'private'],
  ['198.18.0.0', 15, 'ipv4', 'benchmarking'],
  ['224.0.0.0', 4, 'ipv4', 'multicast'],
  ['240.0.0.0', 4, 'ipv4', 'reserved'],
  ['::', 128, 'ipv6', 'unspecified'],
  ['::1', 128, 'ipv6', 'loopback'],
  ['64:ff9b::', 96, 'ipv6', 'nat64'],
  ['64:ff9b:1::', 48, 'ipv6', 'nat64'],
  ['2002::', 16, 'ipv6', '6to4'],
  ['fc00::', 7, 'ipv6', 'private'],
  ['fe80::', 10, 'ipv6', 'link-local'],
  ['ff00::', 8, 'ipv6', 'multicast'],
];
const lists = RANGES.map(([network, prefix, type, name]) => {
  const list = new BlockList();
  list.addSubnet(network, prefix, type);
  return { list, name };
});

/**
 * Why `address` may not be reached from production, or null when it is public. IPv4-mapped IPv6
 * (`::ffff:127.0.0.1`) is judged as its IPv4 address (BlockList does that).
 */
export function refusedAddress(address: string): string | null {
  const family = isIP(address);
  if (family === 0) return 'not an IP address';
  const normalized = address.toLowerCase();
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(normalized)?.[1];
  if (METADATA.has(mapped ?? normalized)) return 'metadata';
  const type = family === 4 ? 'ipv4' : 'ipv6';
  return lists.find(({ list }) => list.check(normalized, type))?.name ?? null;
}

/** Whether `host` (lower-case, no port) is on the allow-list. */
export function hostAllowed(host: string, allowedHosts: readonly string[]): boolean {
  const name = host.toLowerCase().replace(/\.$/, '');
  return allowedHosts.some((pattern) => (pattern.startsWith('*.') ? name.endsWith(pattern.slice(1)) && name.length > pattern.length - 1 : name === pattern));
}

/** Throws EgressRefusedError unless `url` may be requested under `policy` (scheme and host; addresses are checked on connect). */
export function assertEgressUrl(url: URL, policy: EgressPolicy): void {
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new EgressRefusedError(`scheme ${url.protocol} is not http(s)`);
  if (policy.mode === 'sandbox') return;
  if (url.protocol !== 'https:') throw new EgressRefusedError('production requests use https only');
  if (url.username || url.password) throw new EgressRefusedError('a URL with user information');
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (isIP(host)) throw new EgressRefusedError('an IP literal is not a provider host');
  if (!hostAllowed(host, policy.allowedHosts)) throw new EgressRefusedError(`host ${host} is not an allow-listed provider host`);
}

const defaultLookup: EgressLookup = (hostname) =>
  new Promise((resolve, reject) => dnsLookup(hostname, { all: true, verbatim: true }, (error, addresses) => (error ? reject(error) : resolve(addresses))));

/** node:net's lookup hook: resolve through `resolve` and (when `check`) refuse the name if any address is refused. */
function guardedLookup(resolve: EgressLookup, check: boolean): LookupFunction {
  return (hostname, options, callback) => {
    resolve(hostname).then(
      (addresses) => {
        if (addresses.length === 0) return callback(Object.assign(new Error(`no address for ${hostname}`), { code: 'ENOTFOUND' }), '', 4);
        for (const { address } of check ? addresses : []) {
          const refused = refusedAddress(address);
          if (refused) return callback(new EgressRefusedError(`${hostname} resolves to a ${refused} address`), '', 4);
        }
        const family = options.family === 4 || options.family === 6 ? options.family : undefined;
        const usable: LookupAddress[] = addresses.filter((a) => family === undefined || a.family === family).map((a) => ({ address: a.address, family: a.family }));
        if (usable.length === 0) return callback(Object.assign(new Error(`no IPv${family} address for ${hostname}`), { code: 'ENOTFOUND' }), '', 4);
        if (options.all) return (callback as unknown as (e: null, all: LookupAddress[]) => void)(null, usable);
        callback(null, usable[0].address, usable[0].family);
      },
      (error: Error) => callback(error as NodeJS.ErrnoException, '', 4),
    );
  };
}

/** The subset of fetch the provider client uses. */
export type ProviderFetch = (
  url: string,
  init: { method: string; headers: Record<string, string>; body?: string; signal?: AbortSignal; redirect?: 'manual' },
) => Promise<Response>;

// One keep-alive pool per mode, so a socket opened without checks is never reused by a checked request.
const agents = { sandbox: { http: new HttpAgent({ keepAlive: true }), https: new HttpsAgent({ keepAlive: true }) }, production: { http: new HttpAgent({ keepAlive: true }), https: new HttpsAgent({ keepAlive: true }) } };

const NULL_BODY = new Set([101, 204, 205, 304]);

/**
 * A fetch-shaped transport under `policy`: the URL is checked (assertEgressUrl), the name resolved
 * and its addresses checked as the socket connects. Never follows redirects (the caller decides).
 */
export function egressFetch(policy: EgressPolicy): ProviderFetch {
  const lookup = policy.mode === 'production' ? guardedLookup(policy.lookup ?? defaultLookup, true) : policy.lookup ? guardedLookup(policy.lookup, false) : undefined;
  return (url, init) =>
    new Promise<Response>((resolve, reject) => {
      let target: URL;
      try {
        target = new URL(url);
        assertEgressUrl(target, policy);
      } catch (error) {
        return reject(error as Error);
      }
      const secure = target.protocol === 'https:';
      const send = secure ? httpsRequest : httpRequest;
      const body = init.body === undefined ? undefined : Buffer.from(init.body);
      const req = send(
        target,
        {
          method: init.method,
          headers: { ...init.headers, ...(body ? { 'content-length': String(body.length) } : {}) },
          agent: secure ? agents[policy.mode].https : agents[policy.mode].http,
          ...(lookup ? { lookup } : {}),
          signal: init.signal,
        },
        (res: IncomingMessage) => {
          const headers = new Headers();
          for (const [name, value] of Object.entries(res.headers)) {
            if (Array.isArray(value)) for (const v of value) headers.append(name, v);
            else if (value !== undefined) headers.set(name, value);
          }
          const status = res.statusCode ?? 502;
          if (NULL_BODY.has(status) || init.method === 'HEAD') {
            res.resume();
            return resolve(new Response(null, { status, headers }));
          }
          resolve(new Response(Readable.toWeb(res) as unknown as ReadableStream<Uint8Array>, { status, headers }));
        },
      );
      req.on('error', reject);
      req.end(body);
    });
}
