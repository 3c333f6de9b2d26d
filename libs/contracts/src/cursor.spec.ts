import { describe, expect, it } from '@jest/globals';
import { z } from 'zod';
import { canonicalJson, decodeCursor, encodeCursor, filtersHash } from './cursor.js';
import { SYNC_CURSOR_TTL_MS } from './limits.js';

const secret = 'test-secret-0123456789abcdef-0123456789';
const now = Date.UTC(2026, 0, 2, 3, 4, 5);
const binding = { grantId: 'g1', credentialVersion: 3, route: 'GET /v1/syncs', filtersHash: filtersHash({ status: 'failed' }), publication: null };
const payload = { requestedAt: '2026-01-02T03:00:00.000Z', id: 'sync_01J6P2X5K0X66G6267DJ38ANSD', horizon: 1767322800000 };

describe('cursor round trip', () => {
  it('returns the payload for the same binding', () => {
    const token = encodeCursor(payload, binding, { secret, now, ttlMs: SYNC_CURSOR_TTL_MS });
    expect(token).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(decodeCursor(token, binding, { secret, now: now + 1000 })).toEqual({ ok: true, payload });
  });

  it('does not depend on key order of the binding', () => {
    const token = encodeCursor(payload, binding, { secret, now });
    const reordered = Object.fromEntries(Object.entries(binding).reverse());
    expect(decodeCursor(token, reordered, { secret, now }).ok).toBe(true);
  });

  it('checks the payload shape when a schema is given', () => {
    const token = encodeCursor({ offset: 5 }, binding, { secret, now });
    expect(decodeCursor(token, binding, { secret, now, schema: z.object({ offset: z.number().int() }) })).toEqual({ ok: true, payload: { offset: 5 } });
    expect(decodeCursor(token, binding, { secret, now, schema: z.object({ id: z.string() }) })).toEqual({ ok: false, error: 'invalid_cursor' });
  });
});

describe('cursor rejection', () => {
  const token = encodeCursor(payload, binding, { secret, now, ttlMs: SYNC_CURSOR_TTL_MS });

  it('rejects every single-character tamper', () => {
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    for (let i = 0; i < token.length; i++) {
      const swapped = alphabet[(alphabet.indexOf(token[i]) + 1) % alphabet.length];
      const tampered = token.slice(0, i) + swapped + token.slice(i + 1);
      expect(decodeCursor(tampered, binding, { secret, now }).ok).toBe(false);
    }
  });

  it('rejects another binding, grant, credential, filter or secret', () => {
    const other = (patch: object) => decodeCursor(token, { ...binding, ...patch }, { secret, now });
    expect(other({ grantId: 'g2' })).toEqual({ ok: false, error: 'invalid_cursor' });
    expect(other({ credentialVersion: 4 })).toEqual({ ok: false, error: 'invalid_cursor' });
    expect(other({ filtersHash: filtersHash({ status: 'completed' }) })).toEqual({ ok: false, error: 'invalid_cursor' });
    expect(other({ connectionId: 'c2' })).toEqual({ ok: false, error: 'invalid_cursor' });
    expect(decodeCursor(token, binding, { secret: `${secret}x`, now })).toEqual({ ok: false, error: 'invalid_cursor' });
  });

  it('expires after its ttl, and only a valid cursor can say expired', () => {
    expect(decodeCursor(token, binding, { secret, now: now + SYNC_CURSOR_TTL_MS - 1 }).ok).toBe(true);
    expect(decodeCursor(token, binding, { secret, now: now + SYNC_CURSOR_TTL_MS })).toEqual({ ok: false, error: 'expired' });
    expect(decodeCursor(token, { ...binding, grantId: 'x' }, { secret, now: now + SYNC_CURSOR_TTL_MS })).toEqual({ ok: false, error: 'invalid_cursor' });
  });

  it('never expires without a ttl', () => {
    const forever = encodeCursor(payload, binding, { secret, now });
    expect(decodeCursor(forever, binding, { secret, now: now + 10 * 365 * 86_400_000 }).ok).toBe(true);
  });

  it('rejects junk', () => {
    for (const junk of ['', 'abc', 'a.b', 'a=', `${token}=`, 'A'.repeat(9000), 42, null, undefined, ['x']]) {
      expect(decodeCursor(junk, binding, { secret, now })).toEqual({ ok: false, error: 'invalid_cursor' });
    }
  });

  it('refuses weak secrets and bad ttls', () => {
    expect(() => encodeCursor(payload, binding, { secret: 'short', now })).toThrow(RangeError);
    expect(() => encodeCursor(payload, binding, { secret, now, ttlMs: 0 })).toThrow(RangeError);
  });
});

describe('filtersHash and canonicalJson', () => {
  it('is independent of key order and of undefined members', () => {
    expect(filtersHash({ a: 1, b: [1, 2], c: { y: 1, x: 2 } })).toBe(filtersHash({ c: { x: 2, y: 1 }, b: [1, 2], a: 1, d: undefined }));
    expect(filtersHash({ a: 1 })).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });
  it('distinguishes different filters, array order included', () => {
    expect(filtersHash({ ids: [1, 2] })).not.toBe(filtersHash({ ids: [2, 1] }));
    expect(filtersHash({ status: 'failed' })).not.toBe(filtersHash({ status: 'completed' }));
    expect(filtersHash({ a: '1' })).not.toBe(filtersHash({ a: 1 }));
  });
  it('writes canonical text', () => {
    expect(canonicalJson({ b: 1, a: [true, null, 'x'] })).toBe('{"a":[true,null,"x"],"b":1}');
    expect(() => canonicalJson({ a: Number.NaN })).toThrow(TypeError);
  });
});
