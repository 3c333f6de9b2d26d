/**
 * The directory's trip SQL (TripsReadRepository) directly on the real PostgreSQL, without the bus or
 * the gateway: rows are written with plain SQL into a migrated directory schema and read back page
 * by page. Covers the window (`from` inclusive, `to` exclusive, on started_at), the keyset order
 * (started_at then id, microsecond keys, `after` resuming exactly behind the last row), the vehicle
 * and driver filters, the connection boundary, the horizon (rows committed after the walk's
 * snapshot stay out of it) and expansion (vehicle and driver only when asked for), each trip as
 * the public Trip PostgreSQL renders (decision 0028).
 */
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from '@jest/globals';
import { vehicleId, type DriverId } from '@switchyard/domain';
import { useMigratedSchema } from '@switchyard/testing/jest';
import { directoryMigrations } from '../src/db/migrations/index.js';
import { currentHorizon } from '../src/db/repositories/read-horizon.js';
import { TripsReadRepository, type TripPageQuery } from '../src/db/repositories/trips-read.repository.js';
import { insertDriver, insertTrip, insertVehicle, ref, SEEN } from './directory-rows.js';

const repository = new TripsReadRepository();
const db = useMigratedSchema('directory', directoryMigrations);

type Trip = Record<string, unknown> & { id: string };
const NONE = { includeVehicleIds: [], excludeVehicleIds: [], includeStatuses: [] };

/** One frame page of trips, its items parsed (`last`: the position of the last one). */
async function framed(connectionId: string, q: Partial<TripPageQuery> & { limit?: number; expand?: { vehicle: boolean; driver: boolean } } = {}) {
  const { limit = 100, expand = { vehicle: false, driver: false }, ...rest } = q;
  const horizon = q.horizon ?? (await currentHorizon(db.em()));
  const page = await repository.page(db.em(), { connectionId, vehicleIds: [], driverIds: [], ...rest, horizon }, { rules: NONE, expand, directoryFetchedAt: null }, { limit, maxBytes: 4_000_000 });
  return { rows: JSON.parse(page.items) as Trip[], last: page.last };
}
const page = async (connectionId: string, q: Parameters<typeof framed>[1] = {}) => (await framed(connectionId, q)).rows;

const ids = (rows: { id: string }[]) => rows.map((r) => r.id);

describe('TripsReadRepository', () => {
  let connectionId: string;
  /** Trip ids by source id. */
  const trips: Record<string, string> = {};
  let driver: DriverId;

  beforeAll(async () => {
    connectionId = randomUUID();
    await insertVehicle(db, connectionId, 'v1');
    await insertVehicle(db, connectionId, 'v2');
    driver = await insertDriver(db, connectionId, 'd1');
    // t-b and t-a start at the same instant: the id breaks the tie. t-us differs by microseconds only.
    for (const [sourceId, vehicle, startedAt, d] of [
      ['t-early', 'v1', '2026-11-01T07:59:59.999999Z', null],
      ['t-b', 'v1', '2026-11-01T08:00:00Z', driver],
      ['t-a', 'v2', '2026-11-01T08:00:00Z', null],
      ['t-us', 'v2', '2026-11-01T08:00:00.000001Z', driver],
      ['t-late', 'v1', '2026-11-01T10:00:00Z', null],
      ['t-orphan', 'v9', '2026-11-01T11:00:00Z', null],
    ] as const) {
      trips[sourceId] = await insertTrip(db, connectionId, sourceId, vehicle, startedAt, d);
    }
    // Another connection's trip in the same window never shows.
    const other = randomUUID();
    await insertVehicle(db, other, 'v1');
    await insertTrip(db, other, 't-other', 'v1', '2026-11-01T09:00:00Z');
  });

  const ordered = () => {
    const tie = [trips['t-a']!, trips['t-b']!].sort();
    return [trips['t-early']!, ...tie, trips['t-us']!, trips['t-late']!, trips['t-orphan']!];
  };

  it('orders by started_at, then id, with microsecond keys', async () => {
    const rows = await page(connectionId);
    expect(ids(rows)).toEqual(ordered());
    expect(rows.find((r) => r.id === trips['t-us'])).toMatchObject({ startedAt: '2026-11-01T08:00:00.000Z', endedAt: '2026-11-01T08:10:00.000Z', duration: 600_000, distance: 3.5 });
    // The keyset position keeps the stored microseconds.
    const us = await framed(connectionId, { from: '2026-11-01T08:00:00.000001Z', to: '2026-11-01T08:00:00.000002Z' });
    expect(us.last).toEqual({ startedAt: '2026-11-01T08:00:00.000001Z', id: trips['t-us'] });
  });

  it('walks keyset pages that resume right behind the last row, ties and microseconds included', async () => {
    const horizon = await currentHorizon(db.em());
    const walked: string[] = [];
    let after: TripPageQuery['after'];
    for (let n = 0; n < 10; n++) {
      const { rows, last } = await framed(connectionId, { horizon, limit: 2, ...(after ? { after } : {}) });
      walked.push(...ids(rows));
      if (rows.length < 2 || !last) break;
      after = last;
    }
    expect(walked).toEqual(ordered());
  });

  it('keeps to the window: from inclusive, to exclusive', async () => {
    const rows = await page(connectionId, { from: '2026-11-01T08:00:00Z', to: '2026-11-01T10:00:00Z' });
    expect(ids(rows)).toEqual(ordered().slice(1, 4));
    expect(ids(await page(connectionId, { from: '2026-11-01T10:00:00Z' }))).toEqual([trips['t-late'], trips['t-orphan']]);
    expect(ids(await page(connectionId, { to: '2026-11-01T08:00:00Z' }))).toEqual([trips['t-early']]);
  });

  it('filters by vehicle ids and by driver ids', async () => {
    const v2 = vehicleId(ref(connectionId, 'v2'));
    expect(ids(await page(connectionId, { vehicleIds: [v2] }))).toEqual([trips['t-a'], trips['t-us']]);
    expect(ids(await page(connectionId, { driverIds: [driver] }))).toEqual([trips['t-b'], trips['t-us']]);
    expect(ids(await page(connectionId, { vehicleIds: [v2], driverIds: [driver] }))).toEqual([trips['t-us']]);
    expect(await page(connectionId, { vehicleIds: [vehicleId(ref(connectionId, 'nope'))] })).toEqual([]);
  });

  it('leaves out rows committed after the horizon was taken', async () => {
    const horizon = await currentHorizon(db.em());
    const later = await insertTrip(db, connectionId, 't-after-horizon', 'v1', '2026-11-01T09:00:00Z');
    expect(ids(await page(connectionId, { horizon }))).not.toContain(later);
    expect(ids(await page(connectionId))).toContain(later);
    await db.sql(`delete from ${db.t('trip')} where id = ?`, [later]);
  });

  it('expands the vehicle and the driver only when asked, and only a stored vehicle', async () => {
    const plain = await page(connectionId, { driverIds: [driver] });
    expect(plain.map((r) => [r['vehicle'], r['driver']])).toEqual([
      [vehicleId(ref(connectionId, 'v1')), driver],
      [vehicleId(ref(connectionId, 'v2')), driver],
    ]);
    const [expanded] = await page(connectionId, { driverIds: [driver], expand: { vehicle: true, driver: true } });
    expect(expanded).toMatchObject({
      vehicle: { id: vehicleId(ref(connectionId, 'v1')), sourceId: 'v1', name: 'Truck v1', status: 'active', metadata: { addedAt: SEEN } },
      driver: { id: driver, sourceId: 'd1', status: 'active', metadata: { addedAt: SEEN } },
    });
    // Its vehicle is not stored (no status): the id stays; no driver identified: absent.
    const orphan = (await page(connectionId, { from: '2026-11-01T11:00:00Z', expand: { vehicle: true, driver: true } }))[0];
    expect(orphan).toMatchObject({ id: trips['t-orphan'], vehicle: vehicleId(ref(connectionId, 'v9')) });
    expect(orphan).not.toHaveProperty('driver');
  });

  it('finds one trip by id only within its connection', async () => {
    const rendering = { rules: NONE, expand: { vehicle: false, driver: false }, directoryFetchedAt: null };
    expect(JSON.parse((await repository.byId(db.em(), connectionId, trips['t-late']!, rendering))!)).toMatchObject({ id: trips['t-late'], vehicle: vehicleId(ref(connectionId, 'v1')) });
    expect(await repository.byId(db.em(), randomUUID(), trips['t-late']!, rendering)).toBeUndefined();
  });
});
