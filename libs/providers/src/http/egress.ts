/**
 * Where a provider request may go (SSRF guard; decision 0023, docs/reliability.md "Hostile
 * upstreams"). A request leaves only through `egressFetch`, a fetch-shaped transport on node:http(s)
 * whose agents open their sockets through us: resolve the name, check every address, connect to
 * exactly those (no second resolution an attacker could rebind). Lookup and connect are injectable,
 * so tests see where a request would go without it going anywhere.
 *
 * - `production`: the URL must be https on an allow-listed provider host (exact, or `*.suffix` for
 *   any sub-domain: Geotab's `my512.geotab.com`), never an IP literal, and every address its name
 *   resolves to must be public — loopback, private (RFC 1918, fc00::/7), link-local (169.254/16,
 *   fe80::/10), CGNAT (100.64/10), unspecified, multicast, reserved, NAT64/6to4, cloud metadata
 *   and the IPv6 spellings of refused IPv4 addresses are refused (egress-address.ts), and one
 *   refused address refuses the name.
 * - `sandbox`: no allow-list and no address check, so the simulators on loopback keep working. Only
 *   a deployment with `SWITCHYARD_ENV=sandbox` gets it (and tests and simulators that build adapters
 *   directly, which pass no policy).
 * A refusal is `EgressRefusedError`, which the HTTP client turns into a final (never retried)
 * `provider_config_invalid`. Redirects are the HTTP client's (same origin only).
 */
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { Agent as HttpAgent, request as httpRequest, type ClientRequestArgs, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { isIP, connect as netConnect, type LookupFunction } from 'node:net';
import { Readable, type Duplex } from 'node:stream';
import { connect as tlsConnect } from 'node:tls';
import type { Provider } from '@switchyard/domain';
import { refusedAddress } from './egress-address.js';

export type EgressMode = 'sandbox' | 'production';

/** DNS resolution to every address of a name (node:dns `lookup` with `all: true`); injectable so tests never leave loopback. */
export type EgressLookup = (hostname: string) => Promise<readonly { address: string; family: number }[]>;

/** Where a connection goes once its name is resolved (and, in production, every address checked). */
export interface EgressTarget {
  readonly hostname: string;
  readonly port: number;
  /** TLS is the connector's (https). */
  readonly secure: boolean;
  readonly addresses: readonly LookupAddress[];
}

/**
 * Opens the stream to a target (default: TCP/TLS to its addresses). Injectable with the lookup, so a
 * test records where a request would connect and opens a loopback stream (or none) instead: even
 * with the address check removed, no packet leaves loopback.
 */
export type EgressConnect = (target: EgressTarget) => Duplex;

export interface EgressPolicy {
  readonly mode: EgressMode;
  /** Host names allowed in production: exact (`api.samsara.com`) or `*.geotab.com` for any sub-domain. */
  readonly allowedHosts: readonly string[];
  readonly lookup?: EgressLookup;
  readonly connect?: EgressConnect;
}

/** The injectable network side of a policy (tests). */
export type EgressNetwork = Pick<EgressPolicy, 'lookup' | 'connect'>;

/** The real providers' API hosts (/work/shared/providers: samsara.md, motive.md, geotab.md). */
export const PROVIDER_HOSTS: Readonly<Record<Provider, readonly string[]>> = {
  samsara: ['api.samsara.com', 'api.eu.samsara.com'],
  motive: ['api.gomotive.com', 'api.keeptruckin.com'],
  geotab: ['my.geotab.com', '*.geotab.com'],
};

/**
 * Webhook endpoints (the gateway's delivery role, decision 0042) may be any public host: `*`
 * allows every host name, and the rest of production's rules stay — https only, no IP literal, no
 * user information, every resolved address public (checked where the socket connects).
 */
export const ANY_PUBLIC_HOST = '*';

/** The policy of a deployment environment for webhook deliveries: provider egress with any public host allowed. */
export function webhookEgressPolicy(environment: EgressMode, network: EgressNetwork = {}): EgressPolicy {
  return { mode: environment, allowedHosts: [ANY_PUBLIC_HOST], ...network };
}

/** The policy of a deployment environment for one provider's requests. */
export function egressPolicyFor(provider: Provider, environment: EgressMode, network: EgressNetwork = {}): EgressPolicy {
  return { mode: environment, allowedHosts: PROVIDER_HOSTS[provider], ...network };
}

/** No allow-list, no address check: simulators on loopback (what a policy-less client uses). */
export const SANDBOX_EGRESS: EgressPolicy = { mode: 'sandbox', allowedHosts: [] };

export class EgressRefusedError extends Error {
  constructor(readonly reason: string) {
    super(`egress refused: ${reason}`);
    this.name = 'EgressRefusedError';
  }
}

/** Whether `host` (lower-case, no port) is on the allow-list (`*`: any host name). */
export function hostAllowed(host: string, allowedHosts: readonly string[]): boolean {
  const name = host.toLowerCase().replace(/\.$/, '');
  return allowedHosts.some((pattern) => pattern === ANY_PUBLIC_HOST || (pattern.startsWith('*.') ? name.endsWith(pattern.slice(1)) && name.length > pattern.length - 1 : name === pattern));
}

/** Throws EgressRefusedError unless `url` may be requested under `policy` (scheme and host; addresses are checked on connect). */
export function assertEgressUrl(url: URL, policy: EgressPolicy): void {
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new EgressRefusedError(`scheme ${url.protocol} is not http(s)`);
  if (policy.mode === 'sandbox') return;
  if (url.protocol !== 'https:') throw new EgressRefusedError('production requests use https only');
  if (url.username || url.password) throw new EgressRefusedError('a URL with user information');
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (isIP(host)) throw new EgressRefusedError('an IP literal is not allowed');
  if (!hostAllowed(host, policy.allowedHosts)) throw new EgressRefusedError(`host ${host} is not an allow-listed provider host`);
}

const defaultLookup: EgressLookup = (hostname) =>
  new Promise((resolve, reject) => dnsLookup(hostname, { all: true, verbatim: true }, (error, addresses) => (error ? reject(error) : resolve(addresses))));

/** node:net's lookup hook answering only `addresses` (already resolved and checked): the name is never resolved again. */
function fixedLookup(addresses: readonly LookupAddress[]): LookupFunction {
  return (hostname, options, callback) => {
    const family = options.family === 4 || options.family === 6 ? options.family : undefined;
    const usable = addresses.filter((a) => family === undefined || a.family === family);
    if (usable.length === 0) return callback(Object.assign(new Error(`no IPv${family} address for ${hostname}`), { code: 'ENOTFOUND' }), '', 4);
    if (options.all) return (callback as unknown as (e: null, all: LookupAddress[]) => void)(null, usable);
    callback(null, usable[0].address, usable[0].family);
  };
}

/** The real socket: TCP (TLS for https) to the checked addresses, Happy Eyeballs over them. */
const defaultConnect: EgressConnect = ({ hostname, port, secure, addresses }) => {
  const options = { host: hostname, port, lookup: fixedLookup(addresses), autoSelectFamily: true };
  return secure ? tlsConnect({ ...options, ...(isIP(hostname) ? {} : { servername: hostname }) }) : netConnect(options);
};

/**
 * The agents' createConnection: resolve the name through `resolve`, refuse it (when `check`) if any
 * address is refused, then `connect` to exactly those addresses. Asynchronous: the agent takes the
 * socket (or the refusal, which the request emits as its error) through `created`.
 */
function guardedConnection(resolve: EgressLookup, connect: EgressConnect, check: boolean, secure: boolean) {
  return (options: ClientRequestArgs, created?: (error: Error | null, socket: Duplex) => void): undefined => {
    const hostname = (options.host ?? options.hostname ?? 'localhost').replace(/^\[|\]$/g, '');
    const port = Number(options.port);
    const done = created as (error: Error | null, socket?: Duplex) => void;
    resolve(hostname)
      .then((addresses) => {
        if (addresses.length === 0) return done(Object.assign(new Error(`no address for ${hostname}`), { code: 'ENOTFOUND' }));
        for (const { address } of check ? addresses : []) {
          const refused = refusedAddress(address);
          if (refused) return done(new EgressRefusedError(`${hostname} resolves to a ${refused} address`));
        }
        done(null, connect({ hostname, port, secure, addresses: addresses.map(({ address, family }) => ({ address, family })) }));
      })
      .catch((error: Error) => done(error));
    return undefined;
  };
}

/**
 * Keep-alive pools. Production and sandbox never share one (a socket opened without checks is never
 * reused by a checked request); a policy with an injected lookup or connect gets its own.
 */
function agentsFor(policy: EgressPolicy): { http: HttpAgent; https: HttpsAgent } {
  const injected = policy.lookup !== undefined || policy.connect !== undefined;
  if (!injected && policy.mode === 'sandbox') return sandboxAgents;
  if (!injected && productionAgents) return productionAgents;
  const check = policy.mode === 'production';
  const resolve = policy.lookup ?? defaultLookup;
  const connect = policy.connect ?? defaultConnect;
  const http = new HttpAgent({ keepAlive: true });
  const https = new HttpsAgent({ keepAlive: true });
  http.createConnection = guardedConnection(resolve, connect, check, false);
  https.createConnection = guardedConnection(resolve, connect, check, true);
  if (!injected) productionAgents = { http, https };
  return { http, https };
}
const sandboxAgents = { http: new HttpAgent({ keepAlive: true }), https: new HttpsAgent({ keepAlive: true }) };
let productionAgents: { http: HttpAgent; https: HttpsAgent } | undefined;

/** The subset of fetch the provider client uses. */
export type ProviderFetch = (
  url: string,
  init: { method: string; headers: Record<string, string>; body?: string; signal?: AbortSignal; redirect?: 'manual' },
) => Promise<Response>;

const NULL_BODY = new Set([101, 204, 205, 304]);

/**
 * A fetch-shaped transport under `policy`: the URL is checked (assertEgressUrl), the name resolved
 * and its addresses checked as the socket connects. Never follows redirects (the caller decides).
 */
export function egressFetch(policy: EgressPolicy): ProviderFetch {
  const agents = agentsFor(policy);
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
          agent: secure ? agents.https : agents.http,
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
