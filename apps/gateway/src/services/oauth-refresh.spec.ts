/**
 * When provider-access refreshes a grant (oauth-refresh.ts): `refreshableGrant` (a refresh token
 * and the provider's OAuth client) and `refreshReason` (the refused token is the stored one, or the
 * stored expiry is within PROACTIVE_REFRESH_MARGIN_MS).
 */
import { describe, expect, it } from '@jest/globals';
import { accessTokenHash } from '@switchyard/messaging';
import { PROACTIVE_REFRESH_MARGIN_MS, refreshableGrant, refreshReason } from './oauth-refresh.js';

const client = { clientId: 'id', clientSecret: 'shh', authorizeUrl: 'https://p/authorize', tokenUrl: 'https://p/token' };
const NOW = Date.parse('2026-11-26T08:00:00.000Z');
const at = (ms: number) => new Date(NOW + ms).toISOString();

describe('refreshableGrant', () => {
  it('needs a refresh token and the provider’s OAuth client', () => {
    const settings = { oauth: { samsara: client } };
    expect(refreshableGrant('samsara', { apiToken: 'a', refreshToken: 'r' }, settings)).toEqual({ provider: 'samsara', client, refreshToken: 'r' });
    expect(refreshableGrant('samsara', { apiToken: 'a' }, settings)).toBeUndefined();
    expect(refreshableGrant('samsara', { apiToken: 'a', refreshToken: '' }, settings)).toBeUndefined();
    expect(refreshableGrant('motive', { accessToken: 'a', refreshToken: 'r' }, settings)).toBeUndefined();
    expect(refreshableGrant('samsara', { apiToken: 'a', refreshToken: 'r' }, {})).toBeUndefined();
    expect(refreshableGrant('geotab', { database: 'd', refreshToken: 'r' }, settings)).toBeUndefined();
  });
});

describe('refreshReason', () => {
  it('rejected: the hash of the stored access token (under the provider’s key)', () => {
    expect(refreshReason('samsara', { apiToken: 'tok' }, accessTokenHash('tok'), NOW)).toBe('rejected');
    expect(refreshReason('motive', { accessToken: 'tok' }, accessTokenHash('tok'), NOW)).toBe('rejected');
    expect(refreshReason('motive', { apiToken: 'tok' }, accessTokenHash('tok'), NOW)).toBeUndefined();
    expect(refreshReason('samsara', { apiToken: 'tok' }, accessTokenHash('other'), NOW)).toBeUndefined();
  });

  it('expiring: the stored expiry less than the margin away or past; none without a readable expiry', () => {
    expect(refreshReason('samsara', { apiToken: 't', accessTokenExpiresAt: at(PROACTIVE_REFRESH_MARGIN_MS - 1) }, undefined, NOW)).toBe('expiring');
    expect(refreshReason('samsara', { apiToken: 't', accessTokenExpiresAt: at(-1) }, undefined, NOW)).toBe('expiring');
    expect(refreshReason('samsara', { apiToken: 't', accessTokenExpiresAt: at(PROACTIVE_REFRESH_MARGIN_MS) }, undefined, NOW)).toBeUndefined();
    expect(refreshReason('samsara', { apiToken: 't', accessTokenExpiresAt: 'soon' }, undefined, NOW)).toBeUndefined();
    expect(refreshReason('samsara', { apiToken: 't' }, undefined, NOW)).toBeUndefined();
    // A refused token that is no longer stored, on a grant about to expire: refreshed proactively.
    expect(refreshReason('samsara', { apiToken: 't', accessTokenExpiresAt: at(0) }, accessTokenHash('old'), NOW)).toBe('expiring');
  });
});
