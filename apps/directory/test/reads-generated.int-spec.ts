/**
 * The directory's stored reads over generated data (issue 24 item 4: each read gets a test over
 * generated data), on the real PostgreSQL: fast-check writes stored rows with every kind of stored
 * value the public shape must filter (unknown providers, Field envelopes available / missing /
 * invalid, values of the wrong type, unicode and quotes in provider text, parents stored or not,
 * driver emails, phones, states and times valid or not, memberships with duplicates, vehicle
 * metadata in and out of bounds, visibility rules over the generated source ids, trips of stored
 * and unstored vehicles and drivers with tied and microsecond start times, distances NaN or
 * negative),
 * then walks the read with small random limits and byte budgets while rows are inserted and
 * updated between pages. For each walk:
 * - every body passes the public zod schema (the one that drives the OpenAPI document);
 * - each body equals a reference written here from the spec's rules (not the SQL that renders it);
 * - the walk serves each shown row exactly once, in keyset order, and none inserted after its first
 *   page (the horizon), although rows are written between its pages;
 * - a page holds at most `limit` items and at most `maxBytes` bytes of array text unless it holds
 *   one item, and `hasMore` is false exactly on the last page.
 * Mutations tried: the horizon filter removed from idPageTail → "walks" fails (a row inserted
 * mid-walk is served); `parentResolution` resolved without the scope → the inventory case fails;
 * the provider filter removed → the schema check fails (an unknown provider is served); a Driver's
 * email, phone and license state taken as plain strings (the TripDriver rule) → the driver walk
 * fails; wireTimeSql without the sub-millisecond cut (PostgreSQL rounds .9999999 up) → it fails;
 * the exclude list dropped from visibilitySql → the vehicle walk fails; the trips' visibility
 * condition dropped → the trip walk fails.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from '@jest/globals';
import { DRIVER_AVAILABILITY_KEYS, GROUPS_PER_ENTITY, isLicenseState } from '@switchyard/contracts';
import { driverId, FUEL_TYPES, groupId, PROVIDERS, toWireDateTime, tripId, vehicleId, type VisibilityRules } from '@switchyard/domain';
import { coreVehicleV1, driverEmailV1, driverPhoneV1, driverV1, groupV1, isWireDateTime, tripV1, vehicleEntityV1, type TripPositionV1 } from '@switchyard/messaging';
import type { FramedPage } from '@switchyard/service-kit';
import { useMigratedSchema } from '@switchyard/testing/jest';
import fc from 'fast-check';
import { directoryMigrations } from '../src/db/migrations/index.js';
import type { MembershipContext } from '../src/db/repositories/driver-sql.js';
import { DriversReadRepository } from '../src/db/repositories/drivers-read.repository.js';
import { GroupsReadRepository } from '../src/db/repositories/groups-read.repository.js';
import { ROSTER_DATASETS } from '../src/db/repositories/roster-pass.repository.js';
import { TripsReadRepository } from '../src/db/repositories/trips-read.repository.js';
import { VehiclesReadRepository } from '../src/db/repositories/vehicles-read.repository.js';
import { currentHorizon } from '../src/db/repositories/read-horizon.js';
import { completePass, SEEN } from './directory-rows.js';

const db = useMigratedSchema('directory', directoryMigrations);
const RUNS = 12;

/** Provider text: any code point but NUL (PostgreSQL text cannot hold it), quotes and backslashes included. */
const anyText = (minLength: number) => fc.string({ unit: 'binary', minLength, maxLength: 12 }).filter((s) => !s.includes('\u0000'));
/** A stored Field envelope of every kind a provider batch can leave. */
const storedField = fc.oneof(
  anyText(0).map((value) => ({ status: 'available', value, source: 'gen' })),
  fc.constant({ status: 'available', value: 42, source: 'gen' }),
  fc.constantFrom('missing', 'invalid', 'unsupported').map((status) => ({ status, value: null, source: 'gen' })),
);
const providerText = anyText(1);

/** Walks a framed read to its end, writing between pages; checks the frame's page rules and returns the items served. */
async function walkAll<P>(read: (after: P | undefined) => Promise<FramedPage<P>>, page: { limit: number; maxBytes: number }, between: () => Promise<void>): Promise<unknown[]> {
  const served: unknown[] = [];
  let after: P | undefined;
  for (let n = 0; n < 10_000; n++) {
    const framed = await read(after);
    const items = JSON.parse(framed.items) as unknown[];
    expect(framed.count).toBe(items.length);
    expect(items.length).toBeLessThanOrEqual(page.limit);
    if (items.length > 1) expect(Buffer.byteLength(framed.items)).toBeLessThanOrEqual(page.maxBytes);
    served.push(...items);
    if (!framed.hasMore) return served;
    expect(items.length).toBeGreaterThan(0);
    after = framed.last;
    await between();
  }
  throw new Error('walk did not end');
}

interface GenGroup {
  sourceId: string;
  provider: string;
  name: { status: string; value: unknown };
  description: { status: string; value: unknown };
  /** Index of another generated group, or a source id that is not stored, or none. */
  parent: number | string | null;
}

const genGroups = fc.array(
  fc.record({
    sourceId: providerText,
    provider: fc.constantFrom(...PROVIDERS, 'acme'),
    name: storedField,
    description: storedField,
    parent: fc.oneof(fc.constant(null), fc.nat(40), providerText.map((s) => `gone-${s}`)),
  }),
  { minLength: 0, maxLength: 40 },
);

const groupIdOf = (connectionId: string, provider: string, sourceId: string) =>
  groupId({ connectionId, provider: (PROVIDERS as readonly string[]).includes(provider) ? (provider as 'samsara') : 'samsara', sourceId: `${provider}/${sourceId}` });

async function storeGroups(connectionId: string, generated: GenGroup[]): Promise<{ id: string; sourceId: string; provider: string; gen: GenGroup; parentSourceId: string | null; parentId: string | null }[]> {
  const unique = [...new Map(generated.map((g) => [g.sourceId, g])).values()];
  const rows = unique.map((gen) => {
    const parentSourceId = gen.parent === null ? null : typeof gen.parent === 'number' ? (unique[gen.parent % Math.max(unique.length, 1)]?.sourceId ?? null) : gen.parent;
    const parent = parentSourceId === null ? undefined : unique.find((u) => u.sourceId === parentSourceId);
    return {
      id: groupIdOf(connectionId, gen.provider, gen.sourceId),
      sourceId: gen.sourceId,
      provider: gen.provider,
      gen,
      parentSourceId,
      parentId: parentSourceId === null ? null : groupIdOf(connectionId, parent?.provider ?? 'samsara', parentSourceId),
    };
  });
  for (const r of rows) await insertGroupRow(connectionId, r);
  return rows;
}

let publication = 0;
async function insertGroupRow(connectionId: string, r: { id: string; sourceId: string; provider: string; gen: Pick<GenGroup, 'name' | 'description'>; parentSourceId: string | null; parentId: string | null }) {
  await db.sql(
    `insert into ${db.t('group')} (id, connection_id, provider, source_id, name, name_field, description_field, parent_source_id, parent_id, first_seen_at, last_seen_at, fetched_at, modified_at, publication, batch_id)
     values (?, ?, ?, ?, null, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'gen')`,
    [r.id, connectionId, r.provider, r.sourceId, JSON.stringify({ ...r.gen.name, source: 'gen' }), JSON.stringify({ ...r.gen.description, source: 'gen' }), r.parentSourceId, r.parentId, SEEN, SEEN, SEEN, SEEN, ++publication],
  );
}

/** The reference: spec 2.2 read literally (name/description only when available strings; parent id and resolution within the scope). */
function referenceGroup(rows: Awaited<ReturnType<typeof storeGroups>>, r: (typeof rows)[number], scope: Set<string> | null, expandParent: boolean): Record<string, unknown> {
  const known = (p: string) => (PROVIDERS as readonly string[]).includes(p);
  const inScope = (sourceId: string) => scope === null || scope.has(sourceId);
  const text = (f: { status: string; value: unknown }) => (f.status === 'available' && typeof f.value === 'string' ? f.value : undefined);
  const flat = (x: typeof r) => {
    const stored = x.parentSourceId === null ? undefined : rows.find((p) => p.id === x.parentId && inScope(p.sourceId));
    const out: Record<string, unknown> = { id: x.id, sourceId: x.sourceId, provider: x.provider };
    if (text(x.gen.name) !== undefined) out['name'] = text(x.gen.name);
    if (text(x.gen.description) !== undefined) out['description'] = text(x.gen.description);
    if (x.parentId !== null && inScope(x.parentSourceId!)) out['parent'] = x.parentId;
    out['metadata'] = { addedAt: SEEN, modifiedAt: SEEN, visibility: 'visible', parentResolution: x.parentId === null ? 'root_or_unreported' : stored ? 'resolved' : 'unresolved' };
    return { out, stored };
  };
  const { out, stored } = flat(r);
  if (expandParent && stored && known(stored.provider)) out['parent'] = flat(stored).out;
  return out;
}

describe('directory reads over generated data', () => {
  it('walks the group directory: schema, reference bodies, each group once in id order, the horizon held under writes', async () => {
    const repository = new GroupsReadRepository();
    await fc.assert(
      fc.asyncProperty(genGroups, fc.integer({ min: 1, max: 7 }), fc.integer({ min: 150, max: 1500 }), fc.boolean(), async (generated, limit, maxBytes, expandParent) => {
        const connectionId = randomUUID();
        const rows = await storeGroups(connectionId, generated);
        const horizon = await currentHorizon(db.em());
        let written = 0;
        const served = await walkAll<string>(
          (after) => repository.page(db.em(), { connectionId, horizon, expandParent, ...(after ? { after } : {}) }, { limit, maxBytes }),
          { limit, maxBytes },
          async () => {
            // A group inserted mid-walk (after the horizon) and one renamed: the walk keeps to its snapshot's rows.
            await insertGroupRow(connectionId, { id: groupIdOf(connectionId, 'samsara', `late-${++written}`), sourceId: `late-${written}`, provider: 'samsara', gen: { name: { status: 'missing', value: null }, description: { status: 'missing', value: null } }, parentSourceId: null, parentId: null });
          },
        );
        for (const item of served) groupV1.parse(item);
        const shown = rows.filter((r) => (PROVIDERS as readonly string[]).includes(r.provider)).sort((a, b) => (a.id < b.id ? -1 : 1));
        expect(served).toEqual(shown.map((r) => referenceGroup(rows, r, null, expandParent)));
      }),
      { numRuns: RUNS },
    );
  });

  it('answers the inventory and one group by id as the reference does', async () => {
    const repository = new GroupsReadRepository();
    await fc.assert(
      fc.asyncProperty(genGroups, fc.func(fc.boolean()), fc.boolean(), async (generated, approved, expandParent) => {
        const connectionId = randomUUID();
        const rows = await storeGroups(connectionId, generated);
        const scope = rows.filter((r) => approved(r.sourceId)).map((r) => r.sourceId);
        const shown = rows.filter((r) => (PROVIDERS as readonly string[]).includes(r.provider) && scope.includes(r.sourceId)).sort((a, b) => (a.id < b.id ? -1 : 1));
        const inventory = JSON.parse(await repository.inventory(db.em(), connectionId, [...scope, 'never-stored'], expandParent)) as unknown[];
        for (const item of inventory) groupV1.parse(item);
        expect(inventory).toEqual(shown.map((r) => referenceGroup(rows, r, new Set(scope), expandParent)));
        for (const r of rows.slice(0, 5)) {
          const body = await repository.byId(db.em(), connectionId, r.id, expandParent);
          if ((PROVIDERS as readonly string[]).includes(r.provider)) expect(JSON.parse(body!)).toEqual(referenceGroup(rows, r, null, expandParent));
          else expect(body).toBeUndefined();
        }
      }),
      { numRuns: RUNS },
    );
  });

  it('walks the driver directory: schema, reference Drivers, each driver of the pass once in id order, the horizon held under writes', async () => {
    const repository = new DriversReadRepository();
    await fc.assert(
      fc.asyncProperty(genDrivers, genMembership, fc.integer({ min: 1, max: 7 }), fc.integer({ min: 400, max: 6000 }), fc.boolean(), async (generated, membership, limit, maxBytes, expandGroups) => {
        const connectionId = randomUUID();
        const groups = await storeGroups(connectionId, GROUP_POOL.map((sourceId) => ({ sourceId, provider: 'samsara', name: { status: 'available', value: `G ${sourceId}` }, description: { status: 'missing', value: null }, parent: null })));
        const rows = await storeDrivers(connectionId, generated);
        const seq = await completePass(db, ROSTER_DATASETS.drivers, connectionId, 'pass', rows.map((r) => r.id));
        const horizon = await currentHorizon(db.em());
        let written = 0;
        const served = await walkAll<string>(
          (after) => repository.page(db.em(), { connectionId, horizon, seq, ...(after ? { after } : {}) }, { expandGroups, membership }, { limit, maxBytes }),
          { limit, maxBytes },
          async () => {
            // A driver stored and listed by the same pass after the walk began: not in this walk.
            const [late] = await storeDrivers(connectionId, [{ ...generated[0]!, sourceId: `late${++written}`, status: 'active', provider: 'samsara' }].filter(Boolean) as GenDriver[]);
            if (late) await completePass(db, ROSTER_DATASETS.drivers, connectionId, `late-${written}`, [late.id]);
          },
        );
        for (const item of served) driverV1.parse(item);
        const flat = new Map(groups.map((g) => [g.id, referenceGroup(groups, g, null, false)]));
        const shown = rows.filter((r) => referenceDriver(r, membership, expandGroups ? flat : undefined) !== undefined).sort((a, b) => (a.id < b.id ? -1 : 1));
        expect(served).toEqual(shown.map((r) => referenceDriver(r, membership, expandGroups ? flat : undefined)));
      }),
      { numRuns: RUNS },
    );
  });

  it('walks the vehicles in both views: schema, reference bodies, the visibility rule, each shown vehicle once in id order, the horizon held under writes', async () => {
    const repository = new VehiclesReadRepository();
    await fc.assert(
      fc.asyncProperty(genVehicles, fc.func(fc.nat(3)), fc.constantFrom('assets', 'profiles') as fc.Arbitrary<'assets' | 'profiles'>, fc.integer({ min: 1, max: 7 }), fc.integer({ min: 300, max: 5000 }), fc.boolean(), async (generated, pick, view, limit, maxBytes, expandGroups) => {
        const connectionId = randomUUID();
        // The pool's groups as the directory stores them for Samsara (ids minted from the provider's group ids, as a vehicle's memberships are).
        const groups = GROUP_POOL.map((sourceId) => ({
          id: groupId({ connectionId, provider: 'samsara', sourceId }),
          sourceId,
          provider: 'samsara',
          gen: { sourceId, provider: 'samsara', name: { status: 'available', value: `G ${sourceId}` }, description: { status: 'missing', value: null }, parent: null },
          parentSourceId: null,
          parentId: null,
        }));
        for (const g of groups) await insertGroupRow(connectionId, g);
        const rows = await storeVehicles(connectionId, generated);
        // Rules over the generated source ids: each lands in the include list, the exclude list, both or neither.
        const ids = rows.map((r) => r.gen.sourceId);
        const rules: VisibilityRules = {
          includeVehicleIds: ids.filter((id) => pick(id) === 1 || pick(id) === 3),
          excludeVehicleIds: ids.filter((id) => pick(id) === 2),
          includeStatuses: pick('statuses') === 1 ? ['active'] : pick('statuses') === 2 ? ['active', 'inactive'] : [],
        };
        const directoryFetchedAt = pick('fetched') === 0 ? null : SEEN;
        const horizon = await currentHorizon(db.em());
        let written = 0;
        const served = await walkAll<string>(
          (after) => repository.page(db.em(), { connectionId, horizon, view, ...(after ? { after } : {}) }, { rules, expandGroups: view === 'profiles' && expandGroups, directoryFetchedAt }, { limit, maxBytes }),
          { limit, maxBytes },
          async () => {
            await storeVehicles(connectionId, [{ sourceId: `late${++written}`, provider: 'samsara', status: 'active', name: 'late', vin: null, metadata: {} }]);
          },
        );
        for (const item of served) (view === 'assets' ? coreVehicleV1 : vehicleEntityV1).parse(item);
        const flat = view === 'profiles' && expandGroups ? new Map(groups.map((g) => [g.id, referenceGroup(groups, g, null, false)])) : undefined;
        const expected = rows
          .sort((a, b) => (a.id < b.id ? -1 : 1))
          .filter((r) => referenceVisible(r.gen, rules))
          .map((r) => (view === 'assets' ? referenceCore(r) : referenceEntity(connectionId, r, directoryFetchedAt, flat)))
          .filter((v) => v !== undefined);
        expect(served).toEqual(expected);
      }),
      { numRuns: RUNS },
    );
  });

  it('walks the trips: schema, reference Trips (visibility, expansions), each shown trip once in (startedAt, id) order, the horizon held under writes', async () => {
    const repository = new TripsReadRepository();
    await fc.assert(
      fc.asyncProperty(genVehicles, genDrivers, genTrips, fc.func(fc.nat(3)), fc.integer({ min: 1, max: 7 }), fc.integer({ min: 300, max: 6000 }), fc.boolean(), fc.boolean(), async (vehicles, drivers, generated, pick, limit, maxBytes, expandVehicle, expandDriver) => {
        const connectionId = randomUUID();
        const storedVehicles = await storeVehicles(connectionId, vehicles);
        const storedDrivers = await storeDrivers(connectionId, drivers);
        const rows = await storeTrips(connectionId, generated, storedVehicles, storedDrivers);
        const sourceIds = [...new Set([...vehicles.map((v) => v.sourceId), ...generated.map((t) => t.vehicleSourceId)])];
        const rules: VisibilityRules = {
          includeVehicleIds: sourceIds.filter((id) => pick(id) === 1 || pick(id) === 3),
          excludeVehicleIds: sourceIds.filter((id) => pick(id) === 2),
          includeStatuses: pick('statuses') === 1 ? ['active'] : pick('statuses') === 2 ? ['active', 'inactive'] : [],
        };
        const expand = { vehicle: expandVehicle, driver: expandDriver };
        const horizon = await currentHorizon(db.em());
        let written = 0;
        const served = await walkAll<TripPositionV1>(
          (after) => repository.page(db.em(), { connectionId, horizon, vehicleIds: [], driverIds: [], ...(after ? { after } : {}) }, { rules, expand, directoryFetchedAt: SEEN }, { limit, maxBytes }),
          { limit, maxBytes },
          async () => {
            await storeTrips(connectionId, [{ sourceId: `late${++written}`, vehicleSourceId: 'late', driver: null, startedAt: '2026-11-01T00:00:00Z', distance: 1, start: null, end: null }], [], []);
          },
        );
        for (const item of served) tripV1.parse(item);
        const expected = rows
          .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : a.id < b.id ? -1 : 1))
          .filter((r) => referenceVisible(r.vehicle?.gen ?? { sourceId: r.gen.vehicleSourceId, status: null }, rules))
          .map((r) => referenceTrip(connectionId, r, expand));
        expect(served).toEqual(expected);
      }),
      { numRuns: RUNS },
    );
  });
});

// ---- drivers -------------------------------------------------------------------------------

const GROUP_POOL = ['g1', 'g2', 'g3', 'g4'];
/** Values a provider may send for each kind of driver field, valid and not. */
const EMAILS = ['ada@example.com', "o'brien+x@mail.example.co", 'a@', 'ada@example-.com', '.ada@example.com', 'ADA@EXAMPLE.ORG'];
const PHONES = ['+14155550100', '+0123', '555-0100', '+441234567890'];
const STATES = ['ON', 'CA', 'ZZ', 'on'];
const TIMES = ['2024-01-02T03:04:05Z', '2024-01-02T03:04:05.123456789+02:00', '2024-01-02T03:04:05.999999999Z', '2024-01-02T03:04:05.000Z', '2024-01-02t03:04:05z', '2024-13-01', '2024-02-29T23:30:00-01:00', '0001-01-01T00:00:00Z'];

type GenField = { status: string; value: unknown } | undefined;
interface GenDriver {
  sourceId: string;
  provider: string;
  status: string | null;
  fields: Record<string, GenField>;
  groups: string[] | null;
}

const fieldOf = (values: readonly string[]): fc.Arbitrary<GenField> =>
  fc.oneof(
    fc.constantFrom(...values).map((value) => ({ status: 'available', value })),
    anyText(0).map((value) => ({ status: 'available', value })),
    fc.constant({ status: 'available', value: 7 }),
    fc.constantFrom('missing', 'invalid', 'unsupported').map((status) => ({ status, value: null })),
    fc.constant(undefined),
  );
const KEY_VALUES: Record<string, readonly string[]> = { email: EMAILS, phone: PHONES, licenseState: STATES, createdAt: TIMES, updatedAt: TIMES };

const genDrivers = fc.uniqueArray(
  fc.record({
    sourceId: fc.oneof(fc.stringMatching(/^[A-Za-z0-9][A-Za-z0-9:_-]{0,8}$/), fc.constantFrom('-dash', 'has space', '')),
    provider: fc.constantFrom(...PROVIDERS, 'acme'),
    status: fc.constantFrom('active', 'inactive', null, 'retired'),
    fields: fc.record(Object.fromEntries(DRIVER_AVAILABILITY_KEYS.map((k) => [k, fieldOf(KEY_VALUES[k] ?? ['Ada', 'x'])]))),
    groups: fc.oneof(fc.constant(null), fc.array(fc.constantFrom(...GROUP_POOL, 'unstored'), { maxLength: 6 })),
  }),
  { maxLength: 25, selector: (d) => d.sourceId },
);

const genMembership: fc.Arbitrary<MembershipContext> = fc.record({
  own: fc.constantFrom('available', 'stale', 'degraded'),
  degradedCode: fc.constantFrom(null, 'provider_auth_required'),
  fetchedAt: fc.constantFrom(null, SEEN),
  inventoryStatus: fc.constantFrom('disabled', 'available', 'stale'),
});

async function storeDrivers(connectionId: string, generated: GenDriver[]) {
  const rows = generated.map((gen) => ({ id: driverId({ connectionId, provider: 'samsara', sourceId: `${gen.provider}/${gen.sourceId}` }), gen, groupIds: gen.groups?.map((g) => groupIdOf(connectionId, 'samsara', g)) ?? null }));
  for (const r of rows) {
    const fields = Object.fromEntries(Object.entries(r.gen.fields).filter(([, f]) => f !== undefined).map(([k, f]) => [k, { ...f, source: 'gen' }]));
    await db.sql(
      `insert into ${db.t('driver')} (id, connection_id, provider, source_id, status, display_name, status_field, fields, group_membership, group_ids, first_seen_at, last_seen_at, fetched_at, modified_at, publication, batch_id)
       values (?, ?, ?, ?, ?, null, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'gen')`,
      [
        r.id,
        connectionId,
        r.gen.provider,
        r.gen.sourceId,
        r.gen.status,
        JSON.stringify({ status: 'missing', value: null, source: 'gen' }),
        JSON.stringify(fields),
        JSON.stringify(r.gen.groups === null ? { status: 'missing', value: null, source: 'gen' } : { status: 'available', value: r.gen.groups, source: 'gen' }),
        r.groupIds === null ? null : `{${r.groupIds.join(',')}}`,
        SEEN,
        SEEN,
        SEEN,
        SEEN,
        ++publication,
      ],
    );
  }
  return rows;
}

/** The reference Driver (spec 2.5 read literally, the contract's checks in JavaScript); undefined when the row cannot be one. */
function referenceDriver(r: Awaited<ReturnType<typeof storeDrivers>>[number], ctx: MembershipContext, expanded: Map<string, unknown> | undefined): Record<string, unknown> | undefined {
  const { gen } = r;
  if ((gen.status !== 'active' && gen.status !== 'inactive') || !/^[A-Za-z0-9][A-Za-z0-9:_-]{0,255}$/.test(gen.sourceId) || !(PROVIDERS as readonly string[]).includes(gen.provider)) return undefined;
  const checks: Record<string, (v: string) => boolean> = {
    email: (v) => driverEmailV1.safeParse(v).success,
    phone: (v) => driverPhoneV1.safeParse(v).success,
    licenseState: isLicenseState,
    createdAt: isWireDateTime,
    updatedAt: isWireDateTime,
  };
  const out: Record<string, unknown> = { id: r.id, sourceId: gen.sourceId, provider: gen.provider, status: gen.status };
  const availability: Record<string, string> = {};
  const values: Record<string, string> = {};
  for (const key of DRIVER_AVAILABILITY_KEYS) {
    const f = gen.fields[key];
    if (!f) availability[key] = 'missing';
    else if (f.status !== 'available') availability[key] = f.status;
    else if (typeof f.value === 'string' && (checks[key]?.(f.value) ?? true)) {
      availability[key] = 'available';
      values[key] = key === 'createdAt' || key === 'updatedAt' ? toWireDateTime(f.value) : f.value;
    } else availability[key] = 'invalid';
  }
  for (const key of ['firstName', 'middleName', 'lastName', 'displayName', 'email', 'phone', 'username', 'createdAt', 'updatedAt']) if (values[key] !== undefined) out[key] = values[key];
  if (values['licenseNumber'] !== undefined || values['licenseState'] !== undefined) out['license'] = { ...(values['licenseNumber'] !== undefined ? { number: values['licenseNumber'] } : {}), ...(values['licenseState'] !== undefined ? { state: values['licenseState'] } : {}) };
  const unique = r.groupIds === null ? undefined : [...new Set(r.groupIds)];
  const cut = (unique?.length ?? 0) > GROUPS_PER_ENTITY;
  if (unique) out['groups'] = unique.slice(0, GROUPS_PER_ENTITY).map((id) => expanded?.get(id) ?? id);
  const source = gen.groups === null ? 'missing' : 'available';
  const status = source !== 'available' ? source : cut ? 'partial' : ctx.own;
  out['groupMembership'] = {
    status,
    scope: 'credential_visible_directory',
    sourceScope: source === 'available' ? 'credential_visible' : 'unknown',
    fetchedAt: ctx.fetchedAt,
    membershipCapturedAt: SEEN,
    sourceAvailability: source,
    inventoryStatus: ctx.inventoryStatus,
    ...(status === 'degraded' && ctx.degradedCode !== null ? { errorCode: ctx.degradedCode } : {}),
  };
  out['metadata'] = { addedAt: SEEN, modifiedAt: SEEN, visibility: 'visible' };
  out['availability'] = availability;
  return out;
}

// ---- vehicles ------------------------------------------------------------------------------

interface GenVehicle {
  sourceId: string;
  provider: string;
  status: string | null;
  name: string | null;
  vin: string | null;
  metadata: Record<string, { status: string; value: unknown } | undefined>;
}

const metadataCell = (values: fc.Arbitrary<unknown>) =>
  fc.oneof(
    values.map((value) => ({ status: 'available', value })),
    fc.constantFrom('missing', 'invalid', 'unsupported').map((status) => ({ status, value: null })),
    fc.constant(undefined),
  );

const genVehicles = fc.uniqueArray(
  fc.record({
    sourceId: providerText,
    provider: fc.constantFrom(...PROVIDERS, 'acme'),
    status: fc.constantFrom('active', 'inactive', null, 'retired'),
    name: fc.oneof(fc.constant(null), anyText(0)),
    vin: fc.oneof(fc.constant(null), anyText(1)),
    metadata: fc.record({
      make: metadataCell(fc.oneof(anyText(0), fc.constant(3))),
      model: metadataCell(anyText(0)),
      year: metadataCell(fc.constantFrom(1885, 1886, 2021, 2200, 2201, 2021.5, '2021')),
      fuelType: metadataCell(fc.constantFrom(...FUEL_TYPES, 'Diesel', 'steam')),
      licensePlate: metadataCell(anyText(0)),
      licensePlateRegion: metadataCell(anyText(0)),
      createdAt: metadataCell(fc.constantFrom(...TIMES)),
      updatedAt: metadataCell(fc.constantFrom(...TIMES)),
      groups: metadataCell(fc.oneof(fc.array(fc.record({ id: fc.constantFrom(...GROUP_POOL, 'unstored', '') })), fc.constant('not a list'))),
    }),
  }),
  { maxLength: 20, selector: (v) => v.sourceId },
);

async function storeVehicles(connectionId: string, generated: GenVehicle[]) {
  const rows = generated.map((gen) => ({ id: vehicleId({ connectionId, provider: 'samsara', sourceId: `${gen.provider}/${gen.sourceId}` }), gen }));
  for (const r of rows) {
    const metadata = Object.fromEntries(Object.entries(r.gen.metadata).filter(([, f]) => f !== undefined).map(([k, f]) => [k, { ...f, source: 'gen' }]));
    await db.sql(
      `insert into ${db.t('vehicle')} (id, connection_id, provider, source_id, status, name, vin, name_field, vin_field, metadata, first_seen_at, last_seen_at, fetched_at, modified_at, publication, batch_id)
       values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'gen')`,
      [r.id, connectionId, r.gen.provider, r.gen.sourceId, r.gen.status, r.gen.name, r.gen.vin, '{}', '{}', JSON.stringify(metadata), SEEN, SEEN, SEEN, SEEN, ++publication],
    );
  }
  return rows;
}

const entityStatus = (s: string | null) => (s === 'active' || s === 'inactive' ? s : null);

/** The visibility rule read literally (spec 2.6; decision 0029): include list, exclude list, status filter (unknown hides). */
function referenceVisible(v: Pick<GenVehicle, 'sourceId' | 'status'>, rules: VisibilityRules): boolean {
  if (rules.includeVehicleIds.length > 0 && !rules.includeVehicleIds.includes(v.sourceId)) return false;
  if (rules.excludeVehicleIds.includes(v.sourceId)) return false;
  const status = entityStatus(v.status);
  return rules.includeStatuses.length === 0 || (status !== null && (rules.includeStatuses as string[]).includes(status));
}

function referenceCore(r: Awaited<ReturnType<typeof storeVehicles>>[number]) {
  const { gen } = r;
  return { id: r.id, provider_id: gen.sourceId, name: gen.name !== null && gen.name.length > 0 && [...gen.name].length <= 1024 ? gen.name : gen.sourceId, vin: gen.vin };
}

function referenceEntity(connectionId: string, r: Awaited<ReturnType<typeof storeVehicles>>[number], directoryFetchedAt: string | null, expanded: Map<string, unknown> | undefined) {
  const { gen } = r;
  const status = entityStatus(gen.status);
  if (status === null || !(PROVIDERS as readonly string[]).includes(gen.provider)) return undefined;
  const value = (key: string) => (gen.metadata[key]?.status === 'available' ? gen.metadata[key]!.value : undefined);
  const text = (v: unknown) => (typeof v === 'string' && [...v].length <= 1024 ? v : undefined);
  const time = (v: unknown) => (isWireDateTime(v) ? toWireDateTime(v) : undefined);
  const year = value('year');
  const out: Record<string, unknown> = { id: r.id, sourceId: gen.sourceId, provider: gen.provider, status };
  const set = (k: string, v: unknown) => {
    if (v !== undefined) out[k] = v;
  };
  set('name', text(gen.name));
  set('vin', text(gen.vin));
  set('make', text(value('make')));
  set('model', text(value('model')));
  set('year', typeof year === 'number' && Number.isInteger(year) && year >= 1886 && year <= 2200 ? year : undefined);
  set('fuelType', (FUEL_TYPES as readonly unknown[]).includes(value('fuelType')) ? value('fuelType') : undefined);
  const plate = text(value('licensePlate'));
  const region = text(value('licensePlateRegion'));
  if (plate !== undefined || region !== undefined) out['licensePlate'] = { ...(plate !== undefined ? { number: plate } : {}), ...(region !== undefined ? { state: region } : {}) };
  set('createdAt', time(value('createdAt')));
  set('updatedAt', time(value('updatedAt')));
  const field = gen.metadata['groups'];
  const base = { scope: 'credential_visible_directory', sourceScope: 'credential_visible_reported_memberships' };
  if (field?.status === 'available') {
    const list = Array.isArray(field.value) ? (field.value as { id: string }[]) : [];
    const ids = [...new Set(list.filter((g) => g.id !== '').map((g) => groupId({ connectionId, provider: gen.provider as 'samsara', sourceId: g.id })))];
    out['groups'] = ids.slice(0, 1000).map((id) => expanded?.get(id) ?? id);
    out['groupMembership'] = { status: ids.length > 1000 ? 'partial' : 'available', ...base, capturedAt: SEEN, directoryFetchedAt };
  } else out['groupMembership'] = { status: field?.status === 'invalid' ? 'invalid' : 'missing', ...base, capturedAt: null, directoryFetchedAt };
  out['metadata'] = { addedAt: SEEN, modifiedAt: SEEN, visibility: 'visible' };
  return out;
}

// ---- trips ---------------------------------------------------------------------------------

interface GenTrip {
  sourceId: string;
  /** A generated vehicle's source id, or one never stored. */
  vehicleSourceId: string;
  /** Index of a generated driver, or null. */
  driver: number | null;
  startedAt: string;
  distance: number | null;
  start: { latitude: number; longitude: number } | null;
  end: { latitude: number; longitude: number } | null;
}

/** Start times with ties and microseconds, across an hour. */
const startTime = fc.tuple(fc.integer({ min: 0, max: 3 }), fc.constantFrom('', '.5', '.000001', '.999999')).map(([m, f]) => `2026-11-01T08:0${m}:00${f}Z`);
/** A JSON number: JSON has no -0 (it is stored and served as 0). */
const jsonDouble = (min: number, max: number) => fc.double({ min, max, noNaN: true }).map((x) => x + 0);
const point = fc.oneof(fc.constant(null), fc.record({ latitude: jsonDouble(-90, 90), longitude: jsonDouble(-180, 180) }));

const genTrips = fc.uniqueArray(
  fc.record({
    sourceId: fc.stringMatching(/^t[a-z0-9]{1,6}$/),
    vehicleSourceId: fc.oneof(providerText, fc.constant('never-stored')),
    driver: fc.oneof(fc.constant(null), fc.nat(30)),
    startedAt: startTime,
    distance: fc.oneof(fc.constant(null), jsonDouble(0, 1000), fc.constantFrom(-1, Number.NaN)),
    start: point,
    end: point,
  }),
  { maxLength: 25, selector: (t) => t.sourceId },
);

async function storeTrips(connectionId: string, generated: GenTrip[], vehicles: Awaited<ReturnType<typeof storeVehicles>>, drivers: Awaited<ReturnType<typeof storeDrivers>>) {
  const rows = generated.map((gen) => {
    const vehicle = vehicles.find((v) => v.gen.sourceId === gen.vehicleSourceId);
    const driver = gen.driver === null || drivers.length === 0 ? undefined : drivers[gen.driver % drivers.length];
    return {
      id: tripId({ connectionId, provider: 'samsara', sourceId: gen.sourceId }),
      gen,
      vehicle,
      vehicleId: vehicle?.id ?? vehicleId({ connectionId, provider: 'samsara', sourceId: `unstored/${gen.vehicleSourceId}` }),
      driver,
      driverId: gen.driver === null ? null : (driver?.id ?? driverId({ connectionId, provider: 'samsara', sourceId: 'unstored' })),
      /** The keyset time at microseconds (the fraction padded), comparable as text. */
      key: gen.startedAt.replace(/(\.\d+)?Z$/, (f) => `${(f.slice(0, -1) || '.').padEnd(7, '0')}Z`),
    };
  });
  const location = (p: GenTrip['start']) => JSON.stringify(p === null ? { status: 'missing', value: null, source: 'gen' } : { status: 'available', value: p, source: 'gen' });
  for (const r of rows) {
    await db.sql(
      `insert into ${db.t('trip')} (id, connection_id, provider, source_id, vehicle_id, vehicle_source_id, driver_id, driver_source_id, started_at, ended_at, duration_ms, distance_km, distance_basis, distance_field,
         start_location, end_location, first_seen_at, last_seen_at, fetched_at, modified_at, publication, batch_id)
       values (?, ?, 'samsara', ?, ?, ?, ?, null, ?, ?::timestamptz + interval '10 minutes', 600000, ?::float8, 'gps', ?, ?, ?, ?, ?, ?, ?, ?, 'gen')`,
      [r.id, connectionId, r.gen.sourceId, r.vehicleId, r.gen.vehicleSourceId, r.driverId, r.gen.startedAt, r.gen.startedAt, r.gen.distance === null ? null : String(r.gen.distance), JSON.stringify({ status: 'missing', value: null, source: 'gen' }), location(r.gen.start), location(r.gen.end), SEEN, SEEN, SEEN, SEEN, ++publication],
    );
  }
  return rows;
}

/** The reference TripDriver (spec 2.7): the Driver's identity with plain strings, times only when the contract accepts them. */
function referenceTripDriver(r: Awaited<ReturnType<typeof storeDrivers>>[number]): Record<string, unknown> | undefined {
  const { gen } = r;
  if ((gen.status !== 'active' && gen.status !== 'inactive') || !/^[A-Za-z0-9][A-Za-z0-9:_-]{0,255}$/.test(gen.sourceId) || !(PROVIDERS as readonly string[]).includes(gen.provider)) return undefined;
  const value = (key: string) => {
    const f = gen.fields[key];
    return f?.status === 'available' && typeof f.value === 'string' ? f.value : undefined;
  };
  const out: Record<string, unknown> = { id: r.id, sourceId: gen.sourceId, provider: gen.provider, status: gen.status };
  for (const key of ['firstName', 'middleName', 'lastName', 'displayName', 'email', 'phone', 'username']) if (value(key) !== undefined) out[key] = value(key);
  for (const key of ['createdAt', 'updatedAt']) if (isWireDateTime(value(key))) out[key] = toWireDateTime(value(key)!);
  const number = value('licenseNumber');
  const state = value('licenseState');
  if (number !== undefined || state !== undefined) out['license'] = { ...(number !== undefined ? { number } : {}), ...(state !== undefined ? { state } : {}) };
  out['metadata'] = { addedAt: SEEN, modifiedAt: SEEN };
  return out;
}

function referenceTrip(connectionId: string, r: Awaited<ReturnType<typeof storeTrips>>[number], expand: { vehicle: boolean; driver: boolean }): Record<string, unknown> {
  const { gen } = r;
  const out: Record<string, unknown> = { id: r.id, sourceId: gen.sourceId, provider: 'samsara' };
  out['vehicle'] = (expand.vehicle && r.vehicle ? referenceEntity(connectionId, r.vehicle, SEEN, undefined) : undefined) ?? r.vehicleId;
  if (r.driverId !== null) out['driver'] = (expand.driver && r.driver ? referenceTripDriver(r.driver) : undefined) ?? r.driverId;
  const started = new Date(Date.parse(gen.startedAt));
  out['startedAt'] = started.toISOString();
  out['endedAt'] = new Date(started.getTime() + 600_000).toISOString();
  out['duration'] = 600_000;
  if (gen.distance !== null && Number.isFinite(gen.distance) && gen.distance >= 0) out['distance'] = gen.distance;
  if (gen.start) out['startLocation'] = gen.start;
  if (gen.end) out['endLocation'] = gen.end;
  out['metadata'] = { addedAt: SEEN, modifiedAt: SEEN };
  return out;
}
