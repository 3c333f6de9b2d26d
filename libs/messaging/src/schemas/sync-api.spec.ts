/** The sync caller's Connection-Token: sent by the gateway, optional only for an older gateway's calls. */
import { describe, expect, it } from '@jest/globals';
import { createSyncRequestV1, syncCallerV1 } from './sync-api.v1.js';

const caller = { applicationId: '0b6c1d52-7a55-4c3a-9d0e-000000000001', connectionId: '0b6c1d52-7a55-4c3a-9d0e-000000000002', credentialVersion: 2 };
const connectionToken = { id: '0b6c1d52-7a55-4c3a-9d0e-000000000003', tokenVersion: 0 };

describe('syncCallerV1', () => {
  it('carries the Connection-Token the gateway authenticated and the token version it read', () => {
    expect(syncCallerV1.parse({ ...caller, connectionToken })).toEqual({ ...caller, connectionToken });
    expect(createSyncRequestV1.parse({ caller: { ...caller, connectionToken }, lookbackDays: 1 }).caller.connectionToken).toEqual(connectionToken);
  });

  it('still parses a caller without it (a gateway before the token recheck)', () => {
    expect(syncCallerV1.parse(caller).connectionToken).toBeUndefined();
  });

  it.each([
    ['a token id that is not a uuid', { ...connectionToken, id: 'ct_abc' }],
    ['a missing token version', { id: connectionToken.id }],
    ['a negative token version', { ...connectionToken, tokenVersion: -1 }],
    ['an extra property', { ...connectionToken, secret: 'ct_abc' }],
  ])('refuses %s', (_name, token) => {
    expect(syncCallerV1.safeParse({ ...caller, connectionToken: token }).success).toBe(false);
  });
});
