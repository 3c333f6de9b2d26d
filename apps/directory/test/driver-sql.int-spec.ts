/**
 * A stored driver row as the public Driver, rendered by PostgreSQL (driver-sql.ts, through
 * DriversReadRepository.byId) — the assertions the JavaScript mapper's spec (driver.mapper.spec.ts)
 * held, on the real PostgreSQL: every field status, only values the contract accepts (the contract
 * itself, openapi/openapi.json), groups unique and cut at 1000, membership statuses and codes, rows
 * that cannot be a Driver left out; and the TripDriver of a trip's `expand=driver` (trip.mapper.spec.ts).
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from '@jest/globals';
import { available, driverId, invalid, missing, unsupported, type Field } from '@switchyard/domain';
import { driverV1, tripDriverV1, type DatasetStatusV1, type DriverV1 } from '@switchyard/messaging';
import { createResponseValidator, loadOpenApi } from '@switchyard/testing';
import { useMigratedSchema } from '@switchyard/testing/jest';
import { directoryMigrations } from '../src/db/migrations/index.js';
import { membershipContext, tripDriverSql } from '../src/db/repositories/driver-sql.js';
import { DriversReadRepository } from '../src/db/repositories/drivers-read.repository.js';

const db = useMigratedSchema('directory', directoryMigrations);
const repository = new DriversReadRepository();

interface DriverMapContext {
  drivers: DatasetStatusV1;
  groups: DatasetStatusV1;
  inventoryEnabled: boolean;
}

interface DriverDirectoryRow {
  id: string;
  source_id: string;
  provider: string;
  status: string | null;
  fields: Record<string, Field<string>>;
  group_membership: Field<readonly string[]>;
  group_ids: string[] | null;
  fetched_at: string;
  added_at: string;
  modified_at: string;
}

let publication = 0;
/** Stores `row` in a connection of its own and reads it back as the Driver the read serves (undefined: none). */
async function driverOf(row: DriverDirectoryRow, ctx: DriverMapContext): Promise<DriverV1 | undefined> {
  const connectionId = randomUUID();
  // The id is the row's in a connection of its own (ids are the table's primary key).
  const id = driverId({ connectionId, provider: 'motive', sourceId: 'spec' });
  await db.sql(
    `insert into ${db.t('driver')} (id, connection_id, provider, source_id, status, display_name, status_field, fields, group_membership, group_ids, first_seen_at, last_seen_at, fetched_at, modified_at, publication, batch_id)
     values (?, ?, ?, ?, ?, null, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'spec')`,
    [id, connectionId, row.provider, row.source_id, row.status, JSON.stringify(missing(S)), JSON.stringify(row.fields), JSON.stringify(row.group_membership), row.group_ids === null ? null : `{${row.group_ids.join(',')}}`, row.added_at, row.added_at, row.fetched_at, row.modified_at, ++publication],
  );
  const body = await repository.byId(db.em(), connectionId, id, { expandGroups: false, membership: membershipContext(ctx.drivers, ctx.groups, ctx.inventoryEnabled) });
  return body === undefined ? undefined : (JSON.parse(body) as DriverV1);
}

const T = '2026-11-22T12:00:00.000Z';
const S = 'spec';
const status = (s: 'available' | 'stale' | 'degraded' | 'pending', errorCode: string | null = null): DatasetStatusV1 => ({ status: s, fetchedAt: T, capturedAt: T, publishedAt: T, errorCode });
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

describe('the Driver rendered in SQL', () => {
  it('reports every field status and keeps only valid values (a valid public Driver)', async () => {
    const d = (await driverOf(row(), ctx))!;
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

  it('omits values that break the public constraints and reports them invalid', async () => {
    const d = (await driverOf(row({ fields: { ...fields, phone: available('+0123', S), email: available('a@', S), licenseState: available('ZZ', S), updatedAt: available('2024-13-01', S) } }), ctx))!;
    expect(driverV1.parse(d)).toEqual(d);
    for (const k of ['phone', 'email', 'updatedAt'] as const) {
      expect(d).not.toHaveProperty(k);
      expect(d.availability[k]).toBe('invalid');
    }
    expect(d.license).toEqual({ number: 'D1' });
    expect(d.availability.licenseState).toBe('invalid');
    expect(servedAsResult(d)).toEqual([]);
  });

  it('serves only emails and times the public contract accepts (format email, date-time)', async () => {
    expect(servedAsResult((await driverOf(row(), ctx))!)).toEqual([]);
    // Zod's default email check passes these domains; RFC 5321 and the JSON Schema email format do not.
    for (const email of ['ada@example-.com', 'ada@-example.com', `ada@${'a'.repeat(64)}.com`]) {
      const d = (await driverOf(row({ fields: { ...fields, email: available(email, S) } }), ctx))!;
      expect(d).not.toHaveProperty('email');
      expect(d.availability.email).toBe('invalid');
      expect(servedAsResult(d)).toEqual([]);
    }
    // RFC 3339 allows lowercase t/z and a leap second; the reply schema does not, so serving them failed the whole page.
    for (const time of ['2024-01-02t03:04:05z', '2024-01-02T03:04:60Z']) {
      const d = (await driverOf(row({ fields: { ...fields, createdAt: available(time, S) } }), ctx))!;
      expect(d).not.toHaveProperty('createdAt');
      expect(d.availability.createdAt).toBe('invalid');
      expect(driverV1.safeParse(d).success).toBe(true);
    }
    const ok = (await driverOf(row({ fields: { ...fields, email: available("o'brien+fleet@mail.example.co", S) } }), ctx))!;
    expect(ok.email).toBe("o'brien+fleet@mail.example.co");
    expect(servedAsResult(ok)).toEqual([]);
  });

  it('marks more than 1000 groups partial, unknown membership by its status, and degraded membership with its code', async () => {
    const many = Array.from({ length: 1001 }, (_, i) => `group_01JD${String(i).padStart(22, '0')}`);
    expect((await driverOf(row({ group_ids: many }), ctx))!.groupMembership.status).toBe('partial');
    expect((await driverOf(row({ group_ids: many }), ctx))!.groups).toHaveLength(1000);
    const unknown = (await driverOf(row({ group_membership: unsupported(S), group_ids: null }), { ...ctx, inventoryEnabled: true }))!;
    expect(unknown).not.toHaveProperty('groups');
    expect(unknown.groupMembership).toMatchObject({ status: 'unsupported', sourceScope: 'unknown', sourceAvailability: 'unsupported', inventoryStatus: 'available' });
    const degraded = (await driverOf(row(), { ...ctx, drivers: status('degraded', 'provider_auth_required') }))!;
    expect(degraded.groupMembership).toMatchObject({ status: 'degraded', errorCode: 'provider_auth_required' });
  });

  it('cannot make a Driver without a status or with a source id outside the pattern', async () => {
    expect((await driverOf(row({ status: null }), ctx))).toBeUndefined();
    expect((await driverOf(row({ source_id: '-starts-with-dash' }), ctx))).toBeUndefined();
  });
});

/** The trip's driver (TripDriver, spec 2.7; trip.mapper.spec.ts held these on the JavaScript mapper): plain strings where the spec says so, times only in the form the reply schema accepts. */
describe('the TripDriver rendered in SQL', () => {
  async function tripDriver(stored: Record<string, Field<string>>): Promise<Record<string, unknown>> {
    const connectionId = randomUUID();
    const id = driverId({ connectionId, provider: 'motive', sourceId: 'd-1' });
    await db.sql(
      `insert into ${db.t('driver')} (id, connection_id, provider, source_id, status, display_name, status_field, fields, group_membership, group_ids, first_seen_at, last_seen_at, fetched_at, modified_at, publication, batch_id)
       values (?, ?, 'motive', 'd-1', 'active', null, ?, ?, ?, null, ?, ?, ?, ?, ?, 'spec')`,
      [id, connectionId, JSON.stringify(missing(S)), JSON.stringify(stored), JSON.stringify(missing(S)), T, T, T, T, ++publication],
    );
    const [row] = await db.sql<{ body: Record<string, unknown> }>(`select ${tripDriverSql('d')} as body from ${db.t('driver')} d where d.id = ?`, [id]);
    return row!.body;
  }

  it('keeps email, phone and license state as plain strings (no format in a TripDriver)', async () => {
    const d = await tripDriver({ email: available('not-an-email', 's'), phone: available('555-0100', 's'), licenseState: available('XX', 's') });
    expect(d).toMatchObject({ email: 'not-an-email', phone: '555-0100', license: { state: 'XX' } });
    expect(tripDriverV1.parse(d)).toEqual(d);
  });

  it('omits a time the reply schema refuses instead of failing the page (RFC 3339 also allows lowercase t/z and leap seconds)', async () => {
    const d = await tripDriver({ createdAt: available('2024-01-02t03:04:05z', 's'), updatedAt: available('2024-01-02T03:04:60Z', 's') });
    expect(d).not.toHaveProperty('createdAt');
    expect(d).not.toHaveProperty('updatedAt');
    expect(tripDriverV1.safeParse(d).success).toBe(true);
    // A provider's whole-second time is served in the wire format (UTC, milliseconds; decision 0017).
    expect((await tripDriver({ createdAt: available('2024-01-02T03:04:05Z', 's') }))['createdAt']).toBe('2024-01-02T03:04:05.000Z');
  });
});
