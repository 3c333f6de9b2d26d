/**
 * `startSimulator(def, options)`: one provider simulator on node:http. The kit owns the server,
 * accounts, rate limits, scenarios and the `/_sim` control API; `def` supplies the dialect. Order
 * of work per request (sim-kit.types.ts): parse → identify account (an issued OAuth access token
 * stands for its account's credential, expired → provider 401; else provider 401) → revoked?
 * (401) → missing_permission (403) → rate limits (429 + Retry-After) → rate_limit_storm /
 * server_errors / slow → provider handler → field_change → serialize → truncated_json → send.
 * Request-count scenarios are consumed only by requests that reach their stage, so a request
 * refused earlier (401, 403, 429) never uses up a later fault.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createAccountFleet } from './account-fleet.js';
import { handleControl, TrafficStats } from './control-api.js';
import { createOAuthProvider } from './oauth.routes.js';
import { applyFieldChange, truncateBody } from './field-change.js';
import { ScenarioBook } from './scenario-book.js';
import type { Scenario } from './scenario.types.js';
import type { AccountFleet, RunningSimulator, SimContext, SimRequest, SimResponse, SimulatorAccount, SimulatorDefinition, StartSimulatorOptions } from './sim-kit.types.js';
import { TokenBuckets } from './token-bucket.js';

/** Request bodies above this are refused: the largest real call (a Geotab multi-call) is far smaller. */
const MAX_BODY_BYTES = 10 * 1024 * 1024;

class BodyTooLarge extends Error {}

async function readBody(req: http.IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) throw new BodyTooLarge('body too large');
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

function toSimRequest(req: http.IncomingMessage, body: unknown): SimRequest {
  const url = new URL(req.url ?? '/', 'http://simulator');
  const headers: Record<string, string | undefined> = {};
  for (const [name, value] of Object.entries(req.headers)) headers[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  return { method: (req.method ?? 'GET').toUpperCase(), path: url.pathname, query: url.searchParams, headers, body };
}

function isErrorBody(body: unknown): boolean {
  return typeof body === 'object' && body !== null && 'error' in body;
}

export async function startSimulator(def: SimulatorDefinition, options: StartSimulatorOptions): Promise<RunningSimulator> {
  const accountInfo = new Map(options.accounts.map((a) => [a.id, a]));
  const book = new ScenarioBook([...accountInfo.keys()]);
  const buckets = new TokenBuckets(options.rateLimitWallNow);
  const stats = new TrafficStats();
  const sessions: SimContext['sessions'] = new Map();
  const fleets = new Map<string, AccountFleet>();
  let releaseHung: () => void = () => undefined;
  const closed = new Promise<void>((resolve) => (releaseHung = resolve));
  const { clock } = options;
  // Provider-hosted OAuth pages and token endpoint (Samsara, Motive): outside the API's account pipeline.
  const oauth = createOAuthProvider(def.provider, () => [...accountInfo.keys()], { ...options.oauth, controlApi: options.controlApi });

  const accountFleet = (account: string): AccountFleet => {
    let view = fleets.get(account);
    if (!view) fleets.set(account, (view = createAccountFleet(options.fleet, clock, () => book.list(account))));
    return view;
  };

  const withRetryAfter = (resp: SimResponse, seconds: number): SimResponse => {
    const has = Object.keys(resp.headers ?? {}).some((h) => h.toLowerCase() === 'retry-after');
    return resp.status === 429 && !has ? { ...resp, headers: { ...resp.headers, 'Retry-After': String(Math.max(1, Math.ceil(seconds))) } } : resp;
  };

  /** Everything from account identification to the handler; `null` = hung until close. */
  async function respond(sent: SimRequest): Promise<{ resp: SimResponse; account?: string; truncate: boolean } | null> {
    // An issued OAuth access token is served as its account's own credential until it expires.
    const issued = oauth?.accessToken(sent.headers.authorization);
    if (issued?.expired) {
      book.countRequest(issued.account);
      return { resp: def.error('unauthorized', sent, { message: 'access token expired' }), account: issued.account, truncate: false };
    }
    const req = issued ? { ...sent, headers: { ...sent.headers, authorization: `Bearer ${issued.account}` } } : sent;
    const account = def.account(req, sessions);
    if (account === undefined || !book.has(account)) return { resp: def.error('unauthorized', req), truncate: false };
    book.countRequest(account);
    if (book.revoked(account)) return { resp: def.error('unauthorized', req, { message: 'credential revoked' }), account, truncate: false };
    const matchKey = def.matchKey(req);
    const typeNames = def.typeNames?.(req);
    if (book.matching(account, 'missing_permission', matchKey, typeNames).length > 0) return { resp: def.error('forbidden', req, { message: 'missing permission' }), account, truncate: false };
    const limited = buckets.take(def.rateLimits(req, account));
    if (!limited.ok) {
      book.countRateLimited(account);
      return { resp: withRetryAfter(def.error('rate_limited', req, { retryAfterSeconds: limited.retryAfterSeconds }), limited.retryAfterSeconds), account, truncate: false };
    }
    const storm = book.take(account, 'rate_limit_storm');
    if (storm) return { resp: withRetryAfter(def.error('rate_limited', req, { retryAfterSeconds: storm.retryAfterSeconds }), storm.retryAfterSeconds), account, truncate: false };
    const burst = book.take(account, 'server_errors');
    if (burst) return { resp: { ...def.error('server_error', req, { message: 'simulated server error' }), status: burst.status }, account, truncate: false };
    const slow = book.take(account, 'slow');
    if (slow?.hang) {
      await closed;
      return null;
    }
    if (slow) await Promise.race([new Promise((r) => setTimeout(r, slow.delayMs).unref()), closed]);
    const ctx: SimContext = {
      provider: def.provider,
      account,
      accountInfo: accountInfo.get(account) as SimulatorAccount,
      fleet: accountFleet(account),
      clock,
      scenarios: () => book.list(account),
      sessions,
    };
    let resp: SimResponse;
    try {
      resp = await def.handle(req, ctx);
    } catch (error) {
      // Handlers must not throw; a bug still answers like a provider outage, with the reason for the developer.
      resp = def.error('server_error', req, { message: error instanceof Error ? error.message : 'handler failed' });
    }
    const changes: Extract<Scenario, { kind: 'field_change' }>[] = book.matching(account, 'field_change', matchKey, typeNames);
    if (changes.length > 0) {
      const records = def.recordsOf(resp.body);
      if (records) for (const change of changes) applyFieldChange(records, change);
    }
    const truncate = book.take(account, 'truncated_json') !== undefined;
    if (resp.status < 400 && !isErrorBody(resp.body)) book.succeeded(account);
    return { resp, account, truncate };
  }

  async function serve(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    let raw: Buffer;
    try {
      raw = await readBody(req);
    } catch {
      res.writeHead(413).end();
      return;
    }
    if (oauth?.handles(new URL(req.url ?? '/', 'http://simulator').pathname)) {
      oauth.serve(req, res, raw);
      return;
    }
    let body: unknown;
    let bodyOk = true;
    if (raw.length > 0) {
      try {
        body = JSON.parse(raw.toString('utf8'));
      } catch {
        bodyOk = false;
      }
    }
    const simReq = toSimRequest(req, body);
    let out: { resp: SimResponse; account?: string; truncate: boolean } | null;
    if (options.controlApi && (simReq.path === '/_sim' || simReq.path.startsWith('/_sim/'))) {
      out = { resp: bodyOk ? handleControl(simReq, { book, clock, accounts: [...accountInfo.keys()], stats }) : { status: 400, body: { error: { code: 'invalid_json', message: 'body is not JSON' } } }, truncate: false };
    } else if (!bodyOk) {
      out = { resp: def.error('bad_request', simReq, { message: 'body is not JSON' }), truncate: false };
    } else {
      out = await respond(simReq);
    }
    if (out === null || res.destroyed) return;
    const { resp, truncate } = out;
    if (out.account !== undefined) stats.record(out.account, def.matchKey(simReq), resp.status);
    let payload: Buffer = resp.body === undefined ? Buffer.alloc(0) : Buffer.from(JSON.stringify(resp.body), 'utf8');
    if (truncate) payload = truncateBody(payload);
    const headers: Record<string, string> = { ...(payload.length > 0 ? { 'content-type': 'application/json; charset=utf-8' } : {}), ...resp.headers };
    headers['content-length'] = String(payload.length);
    res.writeHead(resp.status, headers).end(payload);
  }

  const server = http.createServer((req, res) => {
    serve(req, res).catch(() => {
      if (!res.headersSent) res.writeHead(500).end();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host ?? '127.0.0.1', () => resolve());
  });
  const address = server.address() as AddressInfo;
  // A wildcard bind is reached through loopback.
  const bound = address.address === '0.0.0.0' || address.address === '::' ? '127.0.0.1' : address.address;
  const host = bound.includes(':') ? `[${bound}]` : bound;

  return {
    provider: def.provider,
    url: `http://${host}:${address.port}`,
    port: address.port,
    setScenarios: (account, scenarios) => book.set(account, scenarios),
    clearScenarios: (account) => book.clear(account),
    scenarios: (account) => book.list(account),
    requestCount: (account) => book.requests(account),
    close: async () => {
      releaseHung();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}
