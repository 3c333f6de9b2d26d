import { describe, expect, it } from '@jest/globals';
import { z } from 'zod';
import type { ConsumerPrincipal } from '../auth/principal.js';
import { READ_CURSOR_TTL_MS, ReadCursorCodec } from './read-cursor.js';

const principal: ConsumerPrincipal = { kind: 'consumer', consumerKeyId: 'k1', connectionId: '22222222-2222-4222-8222-222222222222', permissions: ['read'], credentialVersion: 2, accessEpoch: 1 };
const schema = z.object({ h: z.string(), n: z.number() }).strict();
const secret = 'x'.repeat(43);
const filters = { from: '2026-11-01T00:00:00Z', vehicleIds: ['vcl_a'] };

describe('ReadCursorCodec', () => {
  it('round-trips the payload and expires after READ_CURSOR_TTL_MS', () => {
    let now = 1_000;
    const codec = new ReadCursorCodec(secret, 'GET /x', schema, () => now);
    const token = codec.encode(principal, filters, { h: '1:2:', n: 3 });
    expect(codec.decode(principal, filters, token)).toEqual({ h: '1:2:', n: 3 });
    now += READ_CURSOR_TTL_MS;
    expect(codec.decode(principal, filters, token)).toBeUndefined();
  });

  it('is bound to the filters, the route, the key, the connection, the grant version and the access epoch', () => {
    const codec = new ReadCursorCodec(secret, 'GET /x', schema, () => 1_000);
    const token = codec.encode(principal, filters, { h: '1:2:', n: 3 });
    expect(codec.decode(principal, { ...filters, vehicleIds: ['vcl_b'] }, token)).toBeUndefined();
    expect(new ReadCursorCodec(secret, 'GET /y', schema, () => 1_000).decode(principal, filters, token)).toBeUndefined();
    expect(codec.decode({ ...principal, consumerKeyId: 'k2' }, filters, token)).toBeUndefined();
    expect(codec.decode({ ...principal, connectionId: '33333333-3333-4333-8333-333333333333' }, filters, token)).toBeUndefined();
    expect(codec.decode({ ...principal, credentialVersion: 3 }, filters, token)).toBeUndefined();
    expect(codec.decode({ ...principal, accessEpoch: 2 }, filters, token)).toBeUndefined();
    expect(codec.decode(principal, filters, 'garbage')).toBeUndefined();
  });
});
