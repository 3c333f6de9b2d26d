/**
 * The simulator kit: what each provider simulator (samsara/, motive/, geotab/) plugs into. The kit
 * owns the HTTP server, the account registry, rate limits, the scenario engine and the control API;
 * a provider supplies only its dialect — how a request names its account, how errors look, which
 * rate limits apply, and the route handlers that render the fleet.
 *
 * Order of work per request (kit): parse → identify account (else provider 401) → revoked? (401)
 * → missing_permission scenario (provider 403 / Geotab error) → rate limits (provider 429 with
 * Retry-After) → rate_limit_storm / server_errors / slow scenarios → provider handler → field_change
 * on `recordsOf(body)` → serialize → truncated_json → send.
 */
import type { Fleet, SimClock } from '../fleet/fleet.types.js';
import type { OAuthOptions } from './oauth.routes.js';
import type { Scenario } from './scenario.types.js';

export type ProviderName = 'samsara' | 'motive' | 'geotab';

export interface SimRequest {
  readonly method: string;
  /** Path without query, e.g. `/fleet/vehicles`. */
  readonly path: string;
  readonly query: URLSearchParams;
  /** Lower-case header names. */
  readonly headers: Readonly<Record<string, string | undefined>>;
  /** Parsed JSON body, or undefined. A body that is not JSON is rejected by the kit (400). */
  readonly body: unknown;
}

export interface SimResponse {
  status: number;
  headers?: Record<string, string>;
  /** JSON-serializable. */
  body: unknown;
}

export type SimErrorKind = 'unauthorized' | 'forbidden' | 'rate_limited' | 'server_error' | 'not_found' | 'bad_request';

export interface RateLimit {
  /** Bucket key, e.g. `token:<account>` or `org:<account>:GET /fleet/vehicles`. */
  key: string;
  ratePerSecond: number;
  burst: number;
}

/** A per-account view of the fleet with data-level scenarios applied (odometer reset, device swap, late history). */
export interface AccountFleet extends Fleet {
  /** Device serial of the vehicle at `tMs` (changes after a device_swap). */
  deviceSerial(vehicleIndex: number, tMs: number): string;
  /** False while late_history hides [tMs] for this account. */
  historyVisible(tMs: number): boolean;
}

export interface SimContext {
  readonly provider: ProviderName;
  /** The account the request authenticated as (token, API key, or Geotab database). */
  readonly account: string;
  /** The account's registered credentials (Geotab's Authenticate checks userName / password here). */
  readonly accountInfo: SimulatorAccount;
  readonly fleet: AccountFleet;
  readonly clock: SimClock;
  /** Active scenarios of this account (for the ones a handler applies itself: duplicate_and_reorder). */
  scenarios(): readonly Scenario[];
  /** Session store for providers with sessions (Geotab Authenticate). */
  readonly sessions: Map<string, { account: string; userName: string; expiresAtMs: number }>;
}

export interface SimulatorDefinition {
  readonly provider: ProviderName;
  /** Which account a request belongs to; undefined → `error('unauthorized')`. Geotab reads credentials/session from the JSON-RPC body. */
  account(req: SimRequest, sessions: SimContext['sessions']): string | undefined;
  /** Render an error in the provider's dialect (Geotab: HTTP 200 with `{error}`). */
  error(kind: SimErrorKind, req: SimRequest, extra?: { retryAfterSeconds?: number; message?: string }): SimResponse;
  /** Rate limits that apply to this request (each a token bucket); may be empty. */
  rateLimits(req: SimRequest, account: string): readonly RateLimit[];
  /** Route handler; throw nothing — return `error(...)` responses instead. */
  handle(req: SimRequest, ctx: SimContext): Promise<SimResponse>;
  /** Where the records of a response body are (for field_change); undefined when none. */
  recordsOf(body: unknown): unknown[] | undefined;
  /** Paths or JSON-RPC type names for `missing_permission` / `field_change` matching. */
  matchKey(req: SimRequest): string;
  /** The type names a request asks for, when not its match key (Samsara: a stats request's `types`), for `typeName` matching. */
  typeNames?(req: SimRequest): readonly string[];
}

export interface SimulatorAccount {
  /** The credential as the provider names it: Samsara API token, Motive API key, Geotab database. */
  readonly id: string;
  /** Geotab only. */
  readonly userName?: string;
  readonly password?: string;
}

export interface StartSimulatorOptions {
  port: number;
  host?: string;
  fleet: Fleet;
  clock: SimClock;
  accounts: readonly SimulatorAccount[];
  /** The `/_sim/...` control API (scenarios, clock) — sandbox and tests only. */
  controlApi: boolean;
  /** Samsara's / Motive's OAuth settings (client, access-token TTL) in place of the SIM_OAUTH_* environment. */
  oauth?: Omit<OAuthOptions, 'controlApi'>;
  /**
   * The wall clock the rate-limit buckets refill on (default `performance.now()`): a test that counts
   * the requests a limit admits freezes it, so a slow machine refilling a token mid-count cannot
   * change the answer (tests never depend on timing).
   */
  rateLimitWallNow?: () => number;
}

export interface RunningSimulator {
  readonly provider: ProviderName;
  readonly url: string;
  /** The bound port (useful with `port: 0`). */
  readonly port: number;
  setScenarios(account: string, scenarios: readonly Scenario[]): void;
  clearScenarios(account?: string): void;
  /** Active scenarios of an account, with request counts as remaining. */
  scenarios(account: string): readonly Scenario[];
  /** Requests served per account (for assertions). */
  requestCount(account: string): number;
  close(): Promise<void>;
}
