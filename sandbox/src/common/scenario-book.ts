/**
 * Per-account scenario state of one simulator: the active scenarios (request-count ones decrement
 * as requests reach their stage and disappear at 0), the revoked flag, and the request counters
 * (every request, and those refused by the rate limits).
 * `clear` removes scenarios AND lifts a revocation, so a sandbox operator can always recover.
 */
import type { Scenario } from './scenario.types.js';

type Counted = Extract<Scenario, { kind: 'rate_limit_storm' | 'server_errors' | 'slow' | 'truncated_json' }>;
type Matched = Extract<Scenario, { kind: 'missing_permission' | 'field_change' }>;

interface AccountState {
  scenarios: Scenario[];
  revoked: boolean;
  requests: number;
  /** Requests refused by the dialect's rate limits (429 from the token buckets, not from a storm). */
  rateLimited: number;
}

/**
 * True when a path/type-name scenario applies to a request's match key (no filter = every request).
 * `typeNames`: the type names the request asks for — by default its match key (a Geotab call's
 * typeName); a Samsara vehicle-stats request names its `types` values.
 */
export function scenarioMatches(scenario: Matched, matchKey: string, typeNames: readonly string[] = [matchKey]): boolean {
  if (scenario.pathPrefix !== undefined && !matchKey.startsWith(scenario.pathPrefix)) return false;
  if (scenario.typeName !== undefined && !typeNames.includes(scenario.typeName)) return false;
  return true;
}

export class ScenarioBook {
  private readonly accounts = new Map<string, AccountState>();

  constructor(accountIds: readonly string[]) {
    for (const id of accountIds) this.accounts.set(id, { scenarios: [], revoked: false, requests: 0, rateLimited: 0 });
  }

  has(account: string): boolean {
    return this.accounts.has(account);
  }

  private state(account: string): AccountState {
    const s = this.accounts.get(account);
    if (!s) throw new Error(`simulator: unknown account`);
    return s;
  }

  set(account: string, scenarios: readonly Scenario[]): void {
    const s = this.state(account);
    s.scenarios = scenarios.map((x) => ({ ...x }));
    s.revoked = false;
    // afterRequests 0 revokes at once.
    for (const x of s.scenarios) if (x.kind === 'revoke_credential' && x.afterRequests <= 0) s.revoked = true;
    s.scenarios = s.scenarios.filter((x) => !(x.kind === 'revoke_credential' && x.afterRequests <= 0));
  }

  clear(account?: string): void {
    for (const [id, s] of this.accounts) {
      if (account !== undefined && id !== account) continue;
      s.scenarios = [];
      s.revoked = false;
    }
  }

  list(account: string): readonly Scenario[] {
    return this.accounts.get(account)?.scenarios ?? [];
  }

  revoked(account: string): boolean {
    return this.state(account).revoked;
  }

  countRequest(account: string): void {
    this.state(account).requests++;
  }

  countRateLimited(account: string): void {
    this.state(account).rateLimited++;
  }

  rateLimited(account: string): number {
    return this.accounts.get(account)?.rateLimited ?? 0;
  }

  requests(account: string): number {
    return this.accounts.get(account)?.requests ?? 0;
  }

  /** The first matching path/type scenario of a kind, if any (not consumed). */
  matching<K extends Matched['kind']>(account: string, kind: K, matchKey: string, typeNames?: readonly string[]): Extract<Scenario, { kind: K }>[] {
    return this.list(account).filter((x): x is Extract<Scenario, { kind: K }> => x.kind === kind && scenarioMatches(x as Matched, matchKey, typeNames));
  }

  /** Consume one request from the first active scenario of a counted kind. */
  take<K extends Counted['kind']>(account: string, kind: K): Extract<Scenario, { kind: K }> | undefined {
    const s = this.state(account);
    const i = s.scenarios.findIndex((x) => x.kind === kind);
    if (i < 0) return undefined;
    const found = s.scenarios[i] as Counted;
    const snapshot = { ...found } as Extract<Scenario, { kind: K }>;
    found.requests -= 1;
    if (found.requests <= 0) s.scenarios.splice(i, 1);
    return snapshot;
  }

  /** A request succeeded: count it toward revoke_credential. */
  succeeded(account: string): void {
    const s = this.state(account);
    const i = s.scenarios.findIndex((x) => x.kind === 'revoke_credential');
    if (i < 0) return;
    const found = s.scenarios[i] as Extract<Scenario, { kind: 'revoke_credential' }>;
    found.afterRequests -= 1;
    if (found.afterRequests <= 0) {
      s.scenarios.splice(i, 1);
      s.revoked = true;
    }
  }
}
