import { describe, expect, it } from '@jest/globals';
import { available, invalid, missing, unsupported } from '@switchyard/domain';
import { driverV1, type DriverV1 } from '@switchyard/messaging';
import { createResponseValidator, loadOpenApi } from '@switchyard/testing';
import type { DriverDirectoryRow } from '../db/repositories/drivers-read.repository.js';
import { driverOf, type DriverMapContext } from './driver.mapper.js';

const T = '2026-11-22T12:00:00.000Z';
const S = 'spec';
const status = (s: 'available' | 'stale' | 'degraded' | 'pending', errorCode: string | null = null) => ({ status: s, fetchedAt: T, capturedAt: T, publishedAt: T, errorCode });
const ctx: DriverMapContext = { drivers: status('available'), groups: status('available'), inventoryEnabled: false };
const fields = {
  firstName: available('Ada', S),
  middleName: unsupported<string>(S),
  lastName: missing<string>(S),
  displayName: invalid<string>(S, 'blank'),
  email: available('ada@example.com', S),
  phone: available('+14155550100', S),
  username: available('ada', S),
  licenseNumber: available('D1', S),
  licenseState: available('ON', S),
  createdAt: available('2024-01-02T03:04:05Z', S),
  updatedAt: available('2024-01-02T03:04:05Z', S),
};
// The public contract itself (openapi/openapi.json), not only our zod mirror: a value both accept is safe to serve.
const contract = createResponseValidator(loadOpenApi());
const servedAsResult = (driver: DriverV1) =>
  contract.validate({
    method: 'GET',
    path: `/v1/connections/22222222-2222-4222-8222-222222222222/drivers/${driver.id}`,
    status: 200,
    body: { status: 'available', retrieval: 'stored', fetchedAt: T, capturedAt: T, errorCode: null, driver },
  });
const row = (over: Partial<DriverDirectoryRow> = {}): DriverDirectoryRow => ({
  id: 'drv_01JD0000000000000000000000',
  source_id: 'd-1',
  provider: 'motive',
  status: 'active',
  fields,
  group_membership: available(['g1'], S),
  group_ids: ['group_01JD0000000000000000000000', 'group_01JD0000000000000000000000'],
  fetched_at: T,
  added_at: T,
  modified_at: T,
  ...over,
});

describe('driverOf', () => {
  it('reports every field status and keeps only valid values (a valid public Driver)', () => {
    const d = driverOf(row(), ctx)!;
    expect(driverV1.parse(d)).toEqual(d);
    // The provider's whole-second times in the wire format (UTC, milliseconds; decision 0017).
    expect({ createdAt: d.createdAt, updatedAt: d.updatedAt }).toEqual({ createdAt: '2024-01-02T03:04:05.000Z', updatedAt: '2024-01-02T03:04:05.000Z' });
    // No extra properties (the schema stays closed).
    expect(driverV1.safeParse({ ...d, extra: 1 }).success).toBe(false);
    expect(d.availability).toMatchObject({ firstName: 'available', middleName: 'unsupported', lastName: 'missing', displayName: 'invalid', licenseState: 'available' });
    expect(d).not.toHaveProperty('lastName');
    expect(d).not.toHaveProperty('displayName');
    expect(d.groups).toEqual(['group_01JD0000000000000000000000']);
    expect(d.license).toEqual({ number: 'D1', state: 'ON' });
  });

  it('omits values that break the public constraints and reports them invalid', () => {
    const d = driverOf(row({ fields: { ...fields, phone: available('+0123', S), email: available('a@', S), licenseState: available('ZZ', S), updatedAt: available('2024-13-01', S) } }), ctx)!;
    expect(driverV1.parse(d)).toEqual(d);
    for (const k of ['phone', 'email', 'updatedAt'] as const) {
      expect(d).not.toHaveProperty(k);
      expect(d.availability[k]).toBe('invalid');
    }
    expect(d.license).toEqual({ number: 'D1' });
    expect(d.availability.licenseState).toBe('invalid');
    expect(servedAsResult(d)).toEqual([]);
  });

  it('serves only emails and times the public contract accepts (format email, date-time)', () => {
    expect(servedAsResult(driverOf(row(), ctx)!)).toEqual([]);
    // Zod's default email check passes these domains; RFC 5321 and the JSON Schema email format do not.
    for (const email of ['ada@example-.com', 'ada@-example.com', `ada@${'a'.repeat(64)}.com`]) {
      const d = driverOf(row({ fields: { ...fields, email: available(email, S) } }), ctx)!;
      expect(d).not.toHaveProperty('email');
      expect(d.availability.email).toBe('invalid');
      expect(servedAsResult(d)).toEqual([]);
    }
    // RFC 3339 allows lowercase t/z and a leap second; the reply schema does not, so serving them failed the whole page.
    for (const time of ['2024-01-02t03:04:05z', '2024-01-02T03:04:60Z']) {
      const d = driverOf(row({ fields: { ...fields, createdAt: available(time, S) } }), ctx)!;
      expect(d).not.toHaveProperty('createdAt');
      expect(d.availability.createdAt).toBe('invalid');
      expect(driverV1.safeParse(d).success).toBe(true);
    }
    const ok = driverOf(row({ fields: { ...fields, email: available("o'brien+fleet@mail.example.co", S) } }), ctx)!;
    expect(ok.email).toBe("o'brien+fleet@mail.example.co");
    expect(servedAsResult(ok)).toEqual([]);
  });

  it('marks more than 1000 groups partial, unknown membership by its status, and degraded membership with its code', () => {
    const many = Array.from({ length: 1001 }, (_, i) => `group_01JD${String(i).padStart(22, '0')}`);
    expect(driverOf(row({ group_ids: many }), ctx)!.groupMembership.status).toBe('partial');
    expect(driverOf(row({ group_ids: many }), ctx)!.groups).toHaveLength(1000);
    const unknown = driverOf(row({ group_membership: unsupported(S), group_ids: null }), { ...ctx, inventoryEnabled: true })!;
    expect(unknown).not.toHaveProperty('groups');
    expect(unknown.groupMembership).toMatchObject({ status: 'unsupported', sourceScope: 'unknown', sourceAvailability: 'unsupported', inventoryStatus: 'available' });
    const degraded = driverOf(row(), { ...ctx, drivers: status('degraded', 'provider_auth_required') })!;
    expect(degraded.groupMembership).toMatchObject({ status: 'degraded', errorCode: 'provider_auth_required' });
  });

  it('cannot make a Driver without a status or with a source id outside the pattern', () => {
    expect(driverOf(row({ status: null }), ctx)).toBeUndefined();
    expect(driverOf(row({ source_id: '-starts-with-dash' }), ctx)).toBeUndefined();
  });
});
