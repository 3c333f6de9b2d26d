/**
 * The principal cache's own bounds (decision 0031), without a database: an entry is served until
 * its TTL, never after — the bound that holds when a change notification is lost —; a TTL of 0
 * caches nothing; clear() forgets everything; entries are keyed by the token's hash (another token
 * of the same lookup misses) and by scope; a lookup that was in flight when the cache was cleared
 * is not stored, and an entry's TTL counts from when its lookup began.
 * Mutations tried: get() ignoring expiresAt → "expires after its TTL" fails; set() ignoring the
 * mark's generation → "a lookup in flight at a clear" fails; expiresAt from the set's time instead of
 * the mark's → "counts its TTL from the lookup's start" fails.
 */
import { describe, expect, it } from '@jest/globals';
import type { GatewaySettings } from '../config.js';
import { PrincipalCache } from './principal-cache.js';

const cacheWith = (principalCacheTtlMs: number) => new PrincipalCache({ principalCacheTtlMs } as GatewaySettings);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('PrincipalCache', () => {
  it('serves a verified token until its TTL and expires after it', async () => {
    const cache = cacheWith(30);
    cache.set('consumerKey', 'pt_token', 'c1', { id: 'k1' }, cache.mark());
    expect(cache.get('consumerKey', 'pt_token', 'c1')).toEqual({ id: 'k1' });
    await sleep(60);
    expect(cache.get('consumerKey', 'pt_token', 'c1')).toBeUndefined();
  });

  it('keys by lookup, token hash and scope, and forgets everything on clear()', () => {
    const cache = cacheWith(60_000);
    cache.set('consumerKey', 'pt_token', 'c1', { id: 'k1' }, cache.mark());
    expect(cache.get('consumerKey', 'pt_other', 'c1')).toBeUndefined();
    expect(cache.get('consumerKey', 'pt_token', 'c2')).toBeUndefined();
    expect(cache.get('application', 'pt_token', 'c1')).toBeUndefined();
    cache.clear();
    expect(cache.get('consumerKey', 'pt_token', 'c1')).toBeUndefined();
  });

  it('caches nothing with a TTL of 0', () => {
    const cache = cacheWith(0);
    cache.set('application', 'sk_sandbox_x', '', { id: 'a1' }, cache.mark());
    expect(cache.get('application', 'sk_sandbox_x', '')).toBeUndefined();
  });

  it('does not store what a lookup in flight at a clear read: the change it raced may be missing from it', () => {
    const cache = cacheWith(60_000);
    const since = cache.mark();
    cache.clear(); // a change committed while the lookup was reading
    cache.set('consumerKey', 'pt_token', 'c1', { id: 'k1', grant: 'before the change' }, since);
    expect(cache.get('consumerKey', 'pt_token', 'c1')).toBeUndefined();
    cache.set('consumerKey', 'pt_token', 'c1', { id: 'k1' }, cache.mark());
    expect(cache.get('consumerKey', 'pt_token', 'c1')).toEqual({ id: 'k1' });
  });

  it('counts its TTL from the lookup\'s start, not from when the rows were stored', async () => {
    const cache = cacheWith(40);
    const since = cache.mark();
    await sleep(60); // a slow lookup: what it read is already older than the TTL
    cache.set('consumerKey', 'pt_token', 'c1', { id: 'k1' }, since);
    expect(cache.get('consumerKey', 'pt_token', 'c1')).toBeUndefined();
  });
});
