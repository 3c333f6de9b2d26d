/**
 * Stored vehicle rows as their public shapes, rendered by PostgreSQL (vehicle-sql.ts, through
 * VehiclesReadRepository) — the assertions the JavaScript mappers' specs held
 * (vehicle-entity.mapper.spec.ts, vehicle.mapper.spec.ts), on the real PostgreSQL: metadata cells
 * within the spec's bounds or `invalid`, sources kept or defaulted, the roster-derived status cell,
 * core asset fallbacks, ExpandedVehicle times the contract accepts, no entity without a status, and
 * group memberships minted, unique, cut at 1000.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from '@jest/globals';
import { available, groupId, invalid, missing, unsupported, vehicleId, type Field, type VisibilityRules } from '@switchyard/domain';
import { expandedVehicleV1, vehicleEntityV1 } from '@switchyard/messaging';
import { createResponseValidator, loadOpenApi } from '@switchyard/testing';
import { useMigratedSchema } from '@switchyard/testing/jest';
import { directoryMigrations } from '../src/db/migrations/index.js';
import { currentHorizon } from '../src/db/repositories/read-horizon.js';
import { entityStatusSql } from '../src/db/repositories/vehicle-sql.js';
import { VehiclesReadRepository } from '../src/db/repositories/vehicles-read.repository.js';

const db = useMigratedSchema('directory', directoryMigrations);
const repository = new VehiclesReadRepository();
const NONE: VisibilityRules = { includeVehicleIds: [], excludeVehicleIds: [], includeStatuses: [] };
const T = '2026-01-01T00:00:00.000Z';

interface Stored {
  provider: string;
  status: string | null;
  name: string | null;
  vin: string | null;
  metadata: Record<string, Field<unknown>>;
}

let publication = 0;
/** Stores one vehicle in a connection of its own. */
async function store(over: Partial<Stored> = {}): Promise<{ connectionId: string; id: string }> {
  const v: Stored = { provider: 'geotab', status: 'active', name: 'Truck', vin: null, metadata: {}, ...over };
  const connectionId = randomUUID();
  const id = vehicleId({ connectionId, provider: 'geotab', sourceId: 'src-1' });
  await db.sql(
    `insert into ${db.t('vehicle')} (id, connection_id, provider, source_id, status, name, vin, name_field, vin_field, metadata, first_seen_at, last_seen_at, fetched_at, modified_at, publication, batch_id)
     values (?, ?, ?, 'src-1', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'spec')`,
    [id, connectionId, v.provider, v.status, v.name, v.vin, JSON.stringify(missing('s')), JSON.stringify(missing('s')), JSON.stringify(v.metadata), T, T, T, T, ++publication],
  );
  return { connectionId, id };
}

async function metadataFields(metadata: Record<string, Field<unknown>>, extra: Partial<Stored> = {}): Promise<Record<string, unknown>> {
  const { connectionId, id } = await store({ metadata, ...extra });
  const row = await repository.metadata(db.em(), connectionId, id, NONE);
  return JSON.parse(row!.fields!) as Record<string, unknown>;
}

async function coreVehicle(extra: Partial<Stored>): Promise<unknown> {
  const { connectionId } = await store(extra);
  const page = await repository.page(db.em(), { connectionId, horizon: await currentHorizon(db.em()), view: 'assets' }, { rules: NONE, expandGroups: false, directoryFetchedAt: null }, { limit: 10, maxBytes: 100_000 });
  return (JSON.parse(page.items) as unknown[])[0];
}

async function expandedVehicle(metadata: Record<string, Field<unknown>>, extra: Partial<Stored> = {}, expandGroups = false): Promise<Record<string, unknown> | undefined> {
  const { connectionId, id } = await store({ provider: 'samsara', name: 'Truck 1', metadata, ...extra });
  const body = await repository.entity(db.em(), connectionId, id, { rules: NONE, expandGroups, directoryFetchedAt: null });
  return body === undefined ? undefined : (JSON.parse(body) as Record<string, unknown>);
}

describe('metadata cells', () => {
  it('serves values within the bounds and marks the rest invalid, keeping every key', async () => {
    const fields = await metadataFields({
      make: available('Ford', 'Device.make'),
      model: available('', 'Device.model'),
      year: available(1885, 'Device.year'),
      fuelType: available('diesel', 'Device.fuel'),
      createdAt: available('2024-01-02 03:04', 'Device.created'),
      updatedAt: available('2024-01-02T03:04:05+02:00', 'Device.updated'),
      groups: available(Array.from({ length: 1001 }, (_, i) => ({ id: `g${i}` })), 'Device.groups'),
      serialNumber: invalid('Device.serial', 'not_a_string'),
      licensePlate: unsupported('Device.plate'),
      providerStatus: missing('', 'absent'),
    });
    expect(Object.keys(fields)).toHaveLength(15);
    expect(fields['make']).toEqual({ status: 'available', value: 'Ford', source: 'Device.make' });
    expect(fields['model']).toEqual({ status: 'invalid', value: null, source: 'Device.model' });
    expect(fields['year']).toEqual({ status: 'invalid', value: null, source: 'Device.year' });
    expect(fields['fuelType']).toEqual({ status: 'available', value: 'diesel', source: 'Device.fuel' });
    expect(fields['createdAt']).toEqual({ status: 'invalid', value: null, source: 'Device.created' });
    expect(fields['updatedAt']).toEqual({ status: 'available', value: '2024-01-02T01:04:05.000Z', source: 'Device.updated' });
    expect(fields['groups']).toEqual({ status: 'invalid', value: null, source: 'Device.groups' });
    // Unavailable cells keep their status; the internal reason never leaves; an empty source becomes the metadata source.
    expect(fields['serialNumber']).toEqual({ status: 'invalid', value: null, source: 'Device.serial' });
    expect(fields['licensePlate']).toEqual({ status: 'unsupported', value: null, source: 'Device.plate' });
    expect(fields['providerStatus']).toEqual({ status: 'missing', value: null, source: 'geotab:Device' });
    // A key the stored record lacks is missing, never invented.
    expect(fields['activeTo']).toEqual({ status: 'missing', value: null, source: 'geotab:Device' });
  });

  it('serves the derived status of a provider that reports none, naming the derivation; never for a missing one', async () => {
    const samsara = async (status: string | null, cell: Field<unknown>) => (await metadataFields({ status: cell }, { provider: 'samsara', status }))['status'];
    expect(await samsara('inactive', unsupported('samsara:vehicles'))).toEqual({ status: 'available', value: 'inactive', source: 'samsara:vehicles(derived_from_roster)' });
    // No complete pass listed it yet: unknown, the cell stays as the adapter said.
    expect(await samsara(null, unsupported('samsara:vehicles'))).toEqual({ status: 'unsupported', value: null, source: 'samsara:vehicles' });
    // A status the provider should report but did not is never derived (the column cannot hold one either).
    expect(await samsara('active', missing('samsara:vehicles'))).toEqual({ status: 'missing', value: null, source: 'samsara:vehicles' });
  });
});

describe('core asset', () => {
  it('uses the provider id when the provider reports no name, and null for an unknown vin; carries the vcl_ id', async () => {
    expect(await coreVehicle({ name: null })).toEqual({ id: expect.stringMatching(/^vcl_/), provider_id: 'src-1', name: 'src-1', vin: null });
    expect(await coreVehicle({ name: 'Truck', vin: '1FUJ' })).toEqual({ id: expect.stringMatching(/^vcl_/), provider_id: 'src-1', name: 'Truck', vin: '1FUJ' });
  });
});

describe('ExpandedVehicle / VehicleEntity', () => {
  const contract = createResponseValidator(loadOpenApi());
  const connection = '22222222-2222-4222-8222-222222222222';

  it('serves only times the reply schema and the public contract accept (RFC 3339 also allows lowercase t/z and leap seconds)', async () => {
    const v = (await expandedVehicle({ createdAt: available('2024-01-02t03:04:05z', 's'), updatedAt: available('2024-01-02T03:04:60Z', 's') }))!;
    expect(v).not.toHaveProperty('createdAt');
    expect(v).not.toHaveProperty('updatedAt');
    expect(expandedVehicleV1.safeParse(v).success).toBe(true);
    expect(contract.validate({ method: 'GET', path: `/v1/connections/${connection}/vehicles/${String(v['id'])}`, status: 200, body: v })).toEqual([]);
    const ok = (await expandedVehicle({ createdAt: available('2024-01-02T03:04:05+02:00', 's') }))!;
    // An offset time is served in the wire format (UTC, milliseconds; decision 0017), which the document's pattern checks.
    expect(ok['createdAt']).toBe('2024-01-02T01:04:05.000Z');
    expect(contract.validate({ method: 'GET', path: `/v1/connections/${connection}/vehicles/${String(ok['id'])}`, status: 200, body: ok })).toEqual([]);
  });

  it('is no vehicle (status unknown) when the provider supplies no status (Samsara: the metadata cell is unsupported)', async () => {
    expect(await expandedVehicle({ status: unsupported('samsara:vehicles') }, { status: null })).toBeUndefined();
  });

  it('mints the reported memberships into group ids of the connection, unique in reported order, cut at 1000 (partial)', async () => {
    const { connectionId, id } = await store({ provider: 'samsara', metadata: { groups: available([{ id: 'b' }, { id: 'a' }, { id: 'b' }], 's') } });
    const v = JSON.parse((await repository.entity(db.em(), connectionId, id, { rules: NONE, expandGroups: false, directoryFetchedAt: T }))!) as Record<string, unknown>;
    const mint = (sourceId: string) => groupId({ connectionId, provider: 'samsara', sourceId });
    expect(v['groups']).toEqual([mint('b'), mint('a')]);
    expect(v['groupMembership']).toEqual({ status: 'available', scope: 'credential_visible_directory', sourceScope: 'credential_visible_reported_memberships', capturedAt: T, directoryFetchedAt: T });
    vehicleEntityV1.parse(v);
    const many = await expandedVehicle({ groups: available(Array.from({ length: 1001 }, (_, i) => ({ id: `g${i}` })), 's') });
    expect(many!['groups']).toHaveLength(1000);
    expect(many!['groupMembership']).toMatchObject({ status: 'partial' });
    const unknown = await expandedVehicle({ groups: invalid('s', 'bad') });
    expect(unknown).not.toHaveProperty('groups');
    expect(unknown!['groupMembership']).toMatchObject({ status: 'invalid', capturedAt: null, directoryFetchedAt: null });
  });
});

describe('entity status (the one entity-status rule of stored vehicles; vehicle.mapper.spec.ts held it in JavaScript)', () => {
  const status = async (column: string | null) => (await db.sql<{ s: string | null }>(`select ${entityStatusSql('x.c')} as s from (select ?::text as c) x`, [column]))[0]?.s;

  it('is the reported status when the provider reported one', async () => {
    expect(await status('inactive')).toBe('inactive');
    expect(await status('active')).toBe('active');
  });

  it('is unknown (null), never made up, when a status is missing, invalid or not supplied by the provider (Samsara), or the vehicle is not stored', async () => {
    expect(await status(null)).toBeNull();
    expect(await status('retired')).toBeNull();
  });
});
