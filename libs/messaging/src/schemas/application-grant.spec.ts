/** The grant snapshot's token fields: what a new gateway sends, what an older one sent, what is refused. */
import { describe, expect, it } from '@jest/globals';
import { applicationGrantV1 } from './application-grant.v1.js';

const applicationId = '0b6c1d52-7a55-4c3a-9d0e-000000000001';
const connectionId = '0b6c1d52-7a55-4c3a-9d0e-000000000002';
const tokenId = '0b6c1d52-7a55-4c3a-9d0e-000000000003';
const legacy = {
  applicationId,
  environment: 'sandbox',
  revoked: false,
  credentialVersion: 3,
  grants: [{ connectionId, operations: ['sync.create', 'sync.read'], history: false }],
  updatedAt: '2026-11-22T18:00:00.000Z',
};

describe('applicationGrantV1', () => {
  it('carries the token version and every active Connection-Token with its connection', () => {
    const snapshot = { ...legacy, tokenVersion: 0, connectionTokens: [{ id: tokenId, connectionId }] };
    expect(applicationGrantV1.parse(snapshot)).toEqual(snapshot);
    expect(applicationGrantV1.parse({ ...snapshot, tokenVersion: 7, connectionTokens: [] })).toMatchObject({ tokenVersion: 7, connectionTokens: [] });
  });

  it('still reads a snapshot of a gateway before the token recheck, leaving both token fields absent', () => {
    const parsed = applicationGrantV1.parse(legacy);
    expect(parsed.tokenVersion).toBeUndefined();
    expect(parsed.connectionTokens).toBeUndefined();
  });

  it.each([
    ['a negative token version', { tokenVersion: -1 }],
    ['a fractional token version', { tokenVersion: 1.5 }],
    ['a token id that is not a uuid', { connectionTokens: [{ id: 'ct_abc', connectionId }] }],
    ['a token without its connection', { connectionTokens: [{ id: tokenId }] }],
    ['a token carrying anything else', { connectionTokens: [{ id: tokenId, connectionId, hash: 'x' }] }],
  ])('refuses %s', (_name, change) => {
    expect(applicationGrantV1.safeParse({ ...legacy, tokenVersion: 1, connectionTokens: [], ...change }).success).toBe(false);
  });
});
