import { describe, expect, it } from '@jest/globals';
import type { ApplicationPrincipal } from '../auth/principal.js';
import { SyncCursorCodec } from './sync-cursor.js';

const principal: ApplicationPrincipal = {
  kind: 'application',
  applicationId: '11111111-1111-4111-8111-111111111111',
  environment: 'sandbox',
  connectionId: '22222222-2222-4222-8222-222222222222',
  operations: ['sync.read'],
  history: false,
  credentialVersion: 3,
  accessEpoch: 1,
  connectionTokenId: '44444444-4444-4444-8444-444444444444',
  tokenVersion: 2,
};
const position = { horizon: '1200:1210:1201,1205', after: { requestedAt: '2026-11-22T11:00:00.000Z', id: `sync_${'1'.repeat(26)}` } };
const secret = 'x'.repeat(43);

describe('SyncCursorCodec', () => {
  it('round-trips the horizon and keyset position', () => {
    const codec = new SyncCursorCodec(secret, () => 1_000);
    expect(codec.decode(principal, 'failed', codec.encode(principal, 'failed', position))).toEqual(position);
  });

  it('expires after 15 minutes', () => {
    let now = 1_000;
    const codec = new SyncCursorCodec(secret, () => now);
    const token = codec.encode(principal, undefined, position);
    now += 15 * 60_000 - 1;
    expect(codec.decode(principal, undefined, token)).toEqual(position);
    now += 1;
    expect(codec.decode(principal, undefined, token)).toBeUndefined();
  });

  it('is bound to the status filter, the credential version, the access epoch, the Connection-Token, the application and the connection', () => {
    const codec = new SyncCursorCodec(secret, () => 1_000);
    const token = codec.encode(principal, 'requested', position);
    expect(codec.decode(principal, undefined, token)).toBeUndefined();
    expect(codec.decode(principal, 'failed', token)).toBeUndefined();
    expect(codec.decode({ ...principal, credentialVersion: 4 }, 'requested', token)).toBeUndefined();
    expect(codec.decode({ ...principal, accessEpoch: 2 }, 'requested', token)).toBeUndefined();
    expect(codec.decode({ ...principal, connectionTokenId: '55555555-5555-4555-8555-555555555555' }, 'requested', token)).toBeUndefined();
    expect(codec.decode({ ...principal, applicationId: '33333333-3333-4333-8333-333333333333' }, 'requested', token)).toBeUndefined();
    expect(codec.decode({ ...principal, connectionId: '33333333-3333-4333-8333-333333333333' }, 'requested', token)).toBeUndefined();
    expect(new SyncCursorCodec('y'.repeat(43), () => 1_000).decode(principal, 'requested', token)).toBeUndefined();
  });

  it('survives a token issued or revoked elsewhere for the application (its token version moves, its own token stays)', () => {
    const codec = new SyncCursorCodec(secret, () => 1_000);
    expect(codec.decode({ ...principal, tokenVersion: 3 }, 'requested', codec.encode(principal, 'requested', position))).toEqual(position);
  });
});
