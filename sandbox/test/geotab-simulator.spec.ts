import { describe, expect, it } from '@jest/globals';
import { parseTimeSpan } from '@switchyard/domain';
import type { SimRequest } from '../src/common/sim-kit.types.js';
import { arrivalMsOf, decodeVersion, deviceIndexOf, diagnosticEntity, geotabDeviceId, geotabSimulator, timeSpan, versionCeiling, versionToken, versionValue } from '../src/geotab/index.js';

const req = (body: unknown): SimRequest => ({ method: 'POST', path: '/apiv1', query: new URLSearchParams(), headers: {}, body });

describe('geotab simulator dialect', () => {
  it('formats TimeSpans as .NET "c" strings that parse back exactly', () => {
    expect([timeSpan(0), timeSpan(11_270), timeSpan(90_005.5), timeSpan(4.567)]).toEqual(['00:00:00', '03:07:50', '1.01:00:05.5000000', '00:00:04.5670000']);
    for (const s of [0, 59.9999999, 86_399, 86_400, 1_234_567.1234567]) expect(parseTimeSpan(timeSpan(s))).toEqual({ ok: true, value: expect.closeTo(s, 7) });
  });

  it('versions are 16 hex digits ordered by arrival, then entity, then slot', () => {
    const a = versionValue(1_739_000_000_000, 3, 1);
    const b = versionValue(1_739_000_000_000, 4, 0);
    const c = versionValue(1_739_000_000_001, 0, 0);
    expect(a < b && b < c && c <= versionCeiling(1_739_000_000_001)).toBe(true);
    expect(versionToken(a)).toMatch(/^[0-9a-f]{16}$/);
    expect(decodeVersion(versionToken(a))).toBe(a);
    expect(arrivalMsOf(a)).toBe(1_739_000_000_000);
    expect(decodeVersion('not-hex')).toBeUndefined();
    expect(deviceIndexOf(geotabDeviceId(41))).toBe(41);
  });

  it('errors are HTTP 200 JSON-RPC bodies keyed by data.type; over-limit is 429 with Retry-After', () => {
    const get = req({ method: 'Get', params: { typeName: 'Trip', credentials: { database: 'd', userName: 'u', sessionId: 's' } } });
    expect(geotabSimulator.error('unauthorized', get)).toMatchObject({ status: 200, body: { error: { code: -32000, data: { type: 'InvalidUserException' }, errors: [{ name: 'InvalidUserException' }] } } });
    expect(geotabSimulator.error('forbidden', get)).toMatchObject({ status: 200, body: { error: { data: { type: 'InvalidPermissionsException' } } } });
    expect(geotabSimulator.error('rate_limited', get, { retryAfterSeconds: 2.2 })).toMatchObject({ status: 429, headers: { 'Retry-After': '3' }, body: { error: { data: { type: 'OverLimitException' } } } });
    expect(geotabSimulator.error('unauthorized', req({ method: 'Authenticate', params: { database: 'x' } }))).toMatchObject({ body: { error: { data: { type: 'DbUnavailableException' }, message: "The database 'x' was not found" } } });
    expect(geotabSimulator.error('not_found', get)).toMatchObject({ body: { error: { code: -32601, data: { type: 'MissingMethodException' } } } });
  });

  it('identifies accounts by database (Authenticate) or a live session; matches scenarios by typeName', () => {
    const sessions = new Map([['s1', { account: 'acme', userName: 'u', expiresAtMs: Infinity }]]);
    expect(geotabSimulator.account(req({ method: 'Authenticate', params: { database: 'acme' } }), sessions)).toBe('acme');
    expect(geotabSimulator.account(req({ method: 'Get', params: { credentials: { database: 'acme', userName: 'u', sessionId: 's1' } } }), sessions)).toBe('acme');
    expect(geotabSimulator.account(req({ method: 'Get', params: { credentials: { database: 'other', userName: 'u', sessionId: 's1' } } }), sessions)).toBeUndefined();
    expect(geotabSimulator.account({ ...req({ method: 'Authenticate', params: { database: 'acme' } }), path: '/other' }, sessions)).toBeUndefined();
    expect(geotabSimulator.matchKey(req({ method: 'GetFeed', params: { typeName: 'LogRecord' } }))).toBe('LogRecord');
    expect(geotabSimulator.recordsOf({ result: { data: [{ id: 1 }], toVersion: '1' } })).toEqual([{ id: 1 }]);
    expect(geotabSimulator.recordsOf({ result: [{ id: 2 }] })).toEqual([{ id: 2 }]);
  });

  it('rate limits per (database, user, method, typeName); a multi-call takes one token per distinct inner type', () => {
    expect(geotabSimulator.rateLimits(req({ method: 'Authenticate', params: { userName: 'u' } }), 'acme')).toEqual([{ key: 'geotab:acme:u:Authenticate', ratePerSecond: 10 / 60, burst: 10 }]);
    const multi = req({ method: 'ExecuteMultiCall', params: { credentials: { userName: 'u' }, calls: [{ method: 'Get', params: { typeName: 'StatusData' } }, { method: 'Get', params: { typeName: 'StatusData' } }, { method: 'GetFeed', params: { typeName: 'Trip' } }] } });
    expect(geotabSimulator.rateLimits(multi, 'acme').map((l) => [l.key, l.burst])).toEqual([
      ['geotab:acme:u:Get:StatusData', 900],
      ['geotab:acme:u:GetFeed:Trip', 60],
    ]);
  });

  it('knows the diagnostics it reports', () => {
    expect(diagnosticEntity('DiagnosticOdometerId')).toMatchObject({ code: 5, unitOfMeasure: { id: 'UnitOfMeasureMetersId' } });
    expect(diagnosticEntity('aSpn110')).toMatchObject({ code: 110, name: 'Engine Coolant Temperature' });
    expect(diagnosticEntity('aObdP0420')).toMatchObject({ code: 'P0420' });
    expect(diagnosticEntity('aObdP9999')).toBeUndefined();
  });
});
