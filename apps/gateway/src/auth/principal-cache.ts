/**
 * The principal cache (issue 24 item 6; decision 0031): a verified credential's rows — the consumer
 * key with its grant on one connection, the application, the Connection-Token with its grant — held
 * in memory so a request pays neither the lookup nor the hash comparison again.
 * Bounds: an entry lives at most `principalCacheTtlMs` (default and maximum 1,000 ms); every
 * credential, grant or connection change clears the cache of every gateway process at once
 * (credential-change-listener.ts, PostgreSQL NOTIFY at the change's commit), so a revoke takes
 * effect within milliseconds, and within the TTL even when that notification is lost.
 * Secrets: entries are keyed by the SHA-256 of the presented token, never the token; a token is
 * cached only after it matched its stored hash in constant time (credentialMatches), and a hit is
 * the same token again (equal SHA-256). Unknown, mismatched and revoked tokens are never cached, so
 * guessing cannot fill the cache; at most MAX_ENTRIES are held, the oldest evicted first.
 * Lookups in flight: a lookup takes a `LookupMark` before it reads the database. Its rows are held
 * only if no clear() came since the mark (a change committed while the lookup ran may not be in
 * what it read), and for the TTL counted from the mark, not from the set — so every entry served
 * was read at most `ttlMs` ago, and a change committed at time C is seen by every request from
 * C + ttlMs on, notification or not (the operator CLI waits that long before it returns).
 */
import { createHash } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { GATEWAY_SETTINGS, type GatewaySettings } from '../config.js';

/** Default and upper bound of PRINCIPAL_CACHE_TTL_MS: the staleness the cache may add to a revoke. */
export const PRINCIPAL_CACHE_TTL_MS = 1_000;

/** Far above the credentials one deployment has in active use; bounds memory whatever the traffic. */
const MAX_ENTRIES = 10_000;

/** Which lookup an entry answers: one per credential scheme (and per connection for consumer keys). */
export type CachedLookup = 'consumerKey' | 'application' | 'connectionToken';

const nowMs = () => performance.now();

/** When a lookup began, and which generation of the cache it read under (see the header). */
export interface LookupMark {
  readonly at: number;
  readonly generation: number;
}

@Injectable()
export class PrincipalCache {
  private readonly entries = new Map<string, { value: unknown; expiresAt: number }>();
  private readonly ttlMs: number;
  /** Moves at every clear(): a lookup begun under an older generation is not stored. */
  private generation = 0;

  constructor(@Inject(GATEWAY_SETTINGS) settings: GatewaySettings) {
    this.ttlMs = settings.principalCacheTtlMs ?? PRINCIPAL_CACHE_TTL_MS;
  }

  /** The cached rows of `token` for `lookup` (and `scope`, the connection of a consumer key), unless expired. */
  get<T>(lookup: CachedLookup, token: string, scope = ''): T | undefined {
    const key = keyOf(lookup, token, scope);
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (entry.expiresAt <= nowMs()) {
      this.entries.delete(key);
      return undefined;
    }
    return entry.value as T;
  }

  /** Taken before a lookup reads the database; passed to set() with what it read. */
  mark(): LookupMark {
    return { at: nowMs(), generation: this.generation };
  }

  /**
   * Holds `value` for a token that has just been verified against its stored hash, read by the
   * lookup that took `since`: not at all when the cache was cleared since, else until `since.at + ttl`.
   */
  set(lookup: CachedLookup, token: string, scope: string, value: unknown, since: LookupMark): void {
    if (this.ttlMs <= 0 || since.generation !== this.generation) return;
    if (this.entries.size >= MAX_ENTRIES) this.entries.delete(this.entries.keys().next().value as string);
    this.entries.set(keyOf(lookup, token, scope), { value, expiresAt: since.at + this.ttlMs });
  }

  /** Forgets every entry, and what lookups in flight will bring: a credential, grant or connection changed somewhere. */
  clear(): void {
    this.generation++;
    this.entries.clear();
  }
}

function keyOf(lookup: CachedLookup, token: string, scope: string): string {
  return `${lookup}:${createHash('sha256').update(token, 'utf8').digest('base64url')}:${scope}`;
}
