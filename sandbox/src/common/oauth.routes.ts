/**
 * Provider-hosted OAuth 2.0 for the Samsara and Motive simulators (authorization-code flow, as in
 * /work/shared/providers: samsara.md §1 "OAuth 2.0", motive.md §1 "OAuth 2.0"):
 * - Samsara: `GET /oauth2/authorize?client_id&state&response_type=code&redirect_uri` shows a consent
 *   page; `POST /oauth2/token` with HTTP Basic `client_id:client_secret` and the form
 *   `grant_type=authorization_code&code&redirect_uri` answers `{access_token, refresh_token,
 *   token_type, expires_in}`; `grant_type=refresh_token&refresh_token` refreshes.
 * - Motive: `GET /oauth/authorize?client_id&redirect_uri&response_type=code&scope` (gomotive.com in
 *   production) and `POST /oauth/token` with the form fields `grant_type, code, redirect_uri,
 *   client_id, client_secret` (keeptruckin.com in production).
 * The consent page lists the simulator's accounts by number (never their tokens) with Approve and
 * Deny; Approve redirects to `redirect_uri?code&state`, Deny to `redirect_uri?error=access_denied&state`.
 *
 * Tokens behave like the real providers' (they expire, so clients must refresh):
 * - An access token is opaque (`sim_oauth_` + 32 random bytes, base64url), distinct per issue, and
 *   mapped to its account and an expiry of issue time + TTL (`expires_in` = TTL). The TTL is
 *   SIM_OAUTH_ACCESS_TOKEN_TTL_SECONDS (integer ≥ 1, default 3600; anything else fails at start) or
 *   the `accessTokenTtlSeconds` option. Wall time (`Date.now()`), as for codes, never the simulated
 *   fleet clock.
 * - The kit (simulator.ts) asks `accessToken(authorization)` before identifying the account: a valid
 *   issued Bearer token is served exactly as if the account's own API credential had been sent (the
 *   header is rewritten to it); an expired one gets the provider's 401 ("access token expired"); any
 *   other Bearer value (API tokens / keys) goes to the provider's own account lookup unchanged.
 * - `grant_type=refresh_token` rotates: the used refresh token is invalid afterwards
 *   (`invalid_grant`), a new access and refresh token are issued, and earlier access tokens stay
 *   valid until their own expiry. Tokens live in memory: a restart invalidates every grant.
 * - Access tokens expired for more than a day are forgotten (they then answer the plain 401 of an
 *   unknown credential), so a long-running sandbox does not grow without bound.
 * Codes are single use and live 60 seconds. Sandbox only; no real identity checks.
 * With the kit's control API on, `GET /_sim/oauth` answers `{ tokenRequests: { authorization_code,
 * refresh_token } }` — token-endpoint requests per grant type since start or the last
 * `DELETE /_sim/oauth`, whatever their answer (so a test can tell that a client refreshed).
 * Registered client: SIM_OAUTH_CLIENT_ID / SIM_OAUTH_CLIENT_SECRET (defaults below).
 */
import { randomBytes } from 'node:crypto';
import type http from 'node:http';
import type { ProviderName } from './sim-kit.types.js';

export const SANDBOX_OAUTH_CLIENT = { clientId: 'switchyard-sandbox', clientSecret: 'switchyard-sandbox-secret' } as const;

const PATHS: Partial<Record<ProviderName, { authorize: string; token: string; name: string }>> = {
  samsara: { authorize: '/oauth2/authorize', token: '/oauth2/token', name: 'Samsara' },
  motive: { authorize: '/oauth/authorize', token: '/oauth/token', name: 'Motive' },
};

const CODE_TTL_MS = 60_000;
export const DEFAULT_ACCESS_TOKEN_TTL_SECONDS = 3600;
/** How long an expired access token is still recognized (and answered "access token expired"). */
const RETAIN_EXPIRED_MS = 24 * 3600_000;
const CONTROL_PATH = '/_sim/oauth';
const GRANT_TYPES = ['authorization_code', 'refresh_token'] as const;
type GrantType = (typeof GRANT_TYPES)[number];

export interface OAuthOptions {
  /** The registered client; default SIM_OAUTH_CLIENT_ID / SIM_OAUTH_CLIENT_SECRET or SANDBOX_OAUTH_CLIENT. */
  readonly client?: { readonly clientId: string; readonly clientSecret: string };
  /** Access-token lifetime, integer ≥ 1; default SIM_OAUTH_ACCESS_TOKEN_TTL_SECONDS or 3600. */
  readonly accessTokenTtlSeconds?: number;
  /** Serve `/_sim/oauth` (the token-endpoint counters): only with the kit's control API. */
  readonly controlApi?: boolean;
}

export interface OAuthProvider {
  handles(path: string): boolean;
  serve(req: http.IncomingMessage, res: http.ServerResponse, raw: Buffer): void;
  /** The account behind an issued access token sent as `Bearer <token>`, and whether it has expired; undefined for any other header. */
  accessToken(authorization: string | undefined): { account: string; expired: boolean } | undefined;
}

/** SIM_OAUTH_ACCESS_TOKEN_TTL_SECONDS, or the default when unset; anything but an integer ≥ 1 throws. */
export function accessTokenTtlFromEnv(): number {
  const raw = process.env.SIM_OAUTH_ACCESS_TOKEN_TTL_SECONDS;
  if (raw === undefined || raw === '') return DEFAULT_ACCESS_TOKEN_TTL_SECONDS;
  const ttl = /^\d+$/.test(raw.trim()) ? Number(raw.trim()) : Number.NaN;
  if (!Number.isSafeInteger(ttl) || ttl < 1) throw new Error(`SIM_OAUTH_ACCESS_TOKEN_TTL_SECONDS must be a whole number of seconds ≥ 1, got "${raw}"`);
  return ttl;
}

const esc = (v: string) => v.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

function json(res: http.ServerResponse, status: number, body: unknown): void {
  const payload = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store', 'content-length': String(Buffer.byteLength(payload)) }).end(payload);
}

function html(res: http.ServerResponse, status: number, body: string): void {
  const page = `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Authorize</title>
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:32rem;margin:2rem auto;padding:0 1rem;color:#1a1a1a}button{font:inherit;padding:.6rem 1rem;margin-right:.5rem;min-height:44px}label{display:block;margin:.5rem 0}</style></head><body><main>${body}</main></body></html>`;
  res.writeHead(status, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' }).end(page);
}

function redirect(res: http.ServerResponse, to: string): void {
  res.writeHead(302, { location: to, 'cache-control': 'no-store' }).end();
}

export function createOAuthProvider(provider: ProviderName, accounts: () => readonly string[], options: OAuthOptions = {}): OAuthProvider | undefined {
  const found = PATHS[provider];
  if (!found) return undefined;
  const paths = found;
  const client = options.client ?? { clientId: process.env.SIM_OAUTH_CLIENT_ID ?? SANDBOX_OAUTH_CLIENT.clientId, clientSecret: process.env.SIM_OAUTH_CLIENT_SECRET ?? SANDBOX_OAUTH_CLIENT.clientSecret };
  const ttlSeconds = options.accessTokenTtlSeconds ?? accessTokenTtlFromEnv();
  if (!Number.isSafeInteger(ttlSeconds) || ttlSeconds < 1) throw new Error(`accessTokenTtlSeconds must be a whole number of seconds ≥ 1, got ${ttlSeconds}`);
  const codes = new Map<string, { account: string; redirectUri: string; expiresAtMs: number }>();
  const refreshTokens = new Map<string, string>();
  // One TTL per provider, so insertion order is expiry order: pruning stops at the first fresh entry.
  const accessTokens = new Map<string, { account: string; expiresAtMs: number }>();
  const tokenRequests = (): Record<GrantType, number> => ({ authorization_code: 0, refresh_token: 0 });
  let counts = tokenRequests();

  function authorize(req: http.IncomingMessage, res: http.ServerResponse, url: URL, form: URLSearchParams): void {
    const params = req.method === 'POST' ? form : url.searchParams;
    const clientId = params.get('client_id');
    const redirectUri = params.get('redirect_uri') ?? '';
    const state = params.get('state') ?? '';
    if (clientId !== client.clientId || !/^https?:\/\//.test(redirectUri) || params.get('response_type') !== 'code') {
      return html(res, 400, `<h1>Invalid authorization request</h1><p>Unknown client, missing redirect_uri or response_type other than code.</p>`);
    }
    const back = (query: Record<string, string>) => {
      const to = new URL(redirectUri);
      for (const [k, v] of Object.entries({ ...query, state })) to.searchParams.set(k, v);
      redirect(res, to.toString());
    };
    if (req.method === 'POST') {
      if (form.get('decision') !== 'approve') return back({ error: 'access_denied' });
      const account = accounts()[Number(form.get('account'))];
      if (account === undefined) return html(res, 400, '<h1>Choose an account</h1>');
      const code = randomBytes(24).toString('base64url');
      codes.set(code, { account, redirectUri, expiresAtMs: Date.now() + CODE_TTL_MS });
      return back({ code });
    }
    const hidden = ['client_id', 'redirect_uri', 'state', 'response_type', 'scope']
      .filter((k) => params.get(k) !== null)
      .map((k) => `<input type="hidden" name="${k}" value="${esc(params.get(k) ?? '')}">`)
      .join('');
    const options = accounts()
      .map((_, i) => `<label><input type="radio" name="account" value="${i}"${i === 0 ? ' checked' : ''}> ${paths.name} sandbox account ${i + 1}</label>`)
      .join('');
    html(
      res,
      200,
      `<h1>${paths.name} (simulator): authorize Switchyard?</h1><p>The application <strong>${esc(clientId)}</strong> asks to read your fleet data.</p>
<form method="post">${hidden}<fieldset><legend>Sign in as</legend>${options}</fieldset>
<button type="submit" name="decision" value="approve">Approve</button><button type="submit" name="decision" value="deny">Deny</button></form>`,
    );
  }

  function token(req: http.IncomingMessage, res: http.ServerResponse, form: URLSearchParams): void {
    // Samsara: HTTP Basic client credentials; Motive: client_id / client_secret form fields.
    const basic = /^Basic\s+(\S+)$/i.exec(req.headers.authorization ?? '')?.[1];
    const [basicId, basicSecret] = basic ? Buffer.from(basic, 'base64').toString('utf8').split(':') : [];
    const clientId = provider === 'samsara' ? basicId : form.get('client_id');
    const clientSecret = provider === 'samsara' ? basicSecret : form.get('client_secret');
    const grant = form.get('grant_type');
    const counted = GRANT_TYPES.find((g) => g === grant);
    if (counted) counts[counted]++;
    if (clientId !== client.clientId || clientSecret !== client.clientSecret) return json(res, 401, { error: 'invalid_client' });
    const issue = (account: string) => {
      const now = Date.now();
      for (const [stale, entry] of accessTokens) {
        if (entry.expiresAtMs + RETAIN_EXPIRED_MS >= now) break;
        accessTokens.delete(stale);
      }
      const access = `sim_oauth_${randomBytes(32).toString('base64url')}`;
      accessTokens.set(access, { account, expiresAtMs: now + ttlSeconds * 1000 });
      const refresh = randomBytes(24).toString('base64url');
      refreshTokens.set(refresh, account);
      json(res, 200, { access_token: access, refresh_token: refresh, token_type: 'bearer', expires_in: ttlSeconds });
    };
    if (grant === 'authorization_code') {
      const entry = codes.get(form.get('code') ?? '');
      codes.delete(form.get('code') ?? '');
      if (!entry || entry.expiresAtMs < Date.now() || entry.redirectUri !== form.get('redirect_uri')) return json(res, 400, { error: 'invalid_grant' });
      return issue(entry.account);
    }
    if (grant === 'refresh_token') {
      const account = refreshTokens.get(form.get('refresh_token') ?? '');
      if (!account) return json(res, 400, { error: 'invalid_grant' });
      refreshTokens.delete(form.get('refresh_token') ?? '');
      return issue(account);
    }
    json(res, 400, { error: 'unsupported_grant_type' });
  }

  function control(req: http.IncomingMessage, res: http.ServerResponse): void {
    if (req.method === 'GET') return json(res, 200, { tokenRequests: counts });
    if (req.method === 'DELETE') {
      counts = tokenRequests();
      res.writeHead(204).end();
      return;
    }
    json(res, 405, { error: { code: 'method_not_allowed', message: 'use GET or DELETE' } });
  }

  return {
    handles: (path) => path === paths.authorize || path === paths.token || (options.controlApi === true && path === CONTROL_PATH),
    accessToken(authorization) {
      const token = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '')?.[1];
      const entry = token === undefined ? undefined : accessTokens.get(token);
      return entry && { account: entry.account, expired: entry.expiresAtMs <= Date.now() };
    },
    serve(req, res, raw) {
      const url = new URL(req.url ?? '/', 'http://simulator');
      if (url.pathname === CONTROL_PATH) return control(req, res);
      const form = new URLSearchParams(raw.toString('utf8'));
      if (url.pathname === paths.authorize && (req.method === 'GET' || req.method === 'POST')) return authorize(req, res, url, form);
      if (url.pathname === paths.token && req.method === 'POST') return token(req, res, form);
      json(res, 405, { error: 'method_not_allowed' });
    },
  };
}
