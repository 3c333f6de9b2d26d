/**
 * The fleet utilization page fits one NATS reply (regression of the contract fuzzer's finding,
 * commit 153f83c): `GET /v1/connections/{id}/utilization?interval=hour` over 31 days makes each
 * vehicle's report hundreds of KB (744 hourly intervals in each of its four counters), so a page of
 * a few vehicles outgrows the server's max_payload (1 MiB). telemetry-ingest ends the page at the
 * gateway's byte budget (`maxBytes`, resultsByteBudget) — at least one vehicle — and `nextCursor`
 * continues. On the real gateway, telemetry-ingest, PostgreSQL and NATS, every response validated
 * against the OpenAPI document:
 * - the first page is 200 with fewer vehicles than the fleet (far under the page limit) and a
 *   nextCursor; following the cursors lists every vehicle exactly once, in id order, and every page
 *   is smaller than one NATS message;
 * - each listed report equals the vehicle's own `GET …/vehicles/{vehicleId}/utilization` with the
 *   same window and intervals (real figures: each vehicle drove and ran its engine one day of it);
 * - the seeding is big enough: the listed reports together exceed the server's max_payload.
 * Seeding publishes observation batches as a collector does (telemetry-runs.ts), no simulator.
 *
 * Mutation tried: the byte budget check removed in apps/telemetry-ingest/src/services/
 * usage-report.service.ts `fleet` (every vehicle of the `limit` page listed, as before 153f83c) —
 * the whole fleet (~1.9 MB) goes into one reply, the server refuses it, and page 0 is a 503 after
 * the 10 s RPC timeout (`{ page: 0, status: 503 }`, not 200); reverted.
 */
import { afterAll, beforeAll, expect, it } from '@jest/globals';
import { vehicleId, type Observation } from '@switchyard/domain';
import { connect } from '@nats-io/transport-node';
import { execute } from './gateway-client.js';
import { consumerKey, waitProjectedEverywhere } from './cross-connection-fixture.js';
import { startTestGateway, type TestGateway } from './support.js';
import { ingestObservations } from './telemetry-runs.js';

type Utilization = { vehicleId: string; distance: { value: number | null; intervals?: { amount: number | null }[] }; engineRuntime: { value: number | null } };
type FleetPage = { vehicles: Utilization[]; nextCursor: string | null };

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
/** Seven vehicles: about 270 KB each hourly over 31 days, so ~3 fit a page and the fleet needs 3 pages. */
const SOURCES = Array.from({ length: 7 }, (_x, i) => `fleet-veh-${i}`);
/** The longest hourly window (USAGE_HOURLY_MAX_DAYS), on whole hours, ended a day ago. */
const END_MS = Math.floor(Date.now() / HOUR) * HOUR - DAY;
const START_MS = END_MS - 31 * DAY;
const Q = `startTime=${new Date(START_MS).toISOString()}&endTime=${new Date(END_MS).toISOString()}&interval=hour&timeZone=UTC`;
/** Samples every 30 minutes (the maximum observation gap): the vehicle's observed day counts every hour. */
const STEP_MS = 30 * 60_000;

let gw: TestGateway;
let connectionId: string;
let key: Record<string, string>;
let ids: string[];
/** The NATS server's max_payload (its INFO), the size one reply may have. */
let maxPayload: number;

const get = (path: string) => gw.call('GET', `/v1/connections/${connectionId}${path}`, { headers: key });

beforeAll(async () => {
  // 10 s, not the harness's 1 s: a page computes three or four hourly reports, on a busy CI machine too.
  // The directory too: it publishes the connection's visibility set, without which telemetry shows no vehicle (decision 0029).
  gw = await startTestGateway({ directory: true, telemetryIngest: true, rpcTimeoutMs: 10_000 });
  const nc = await connect({ servers: gw.natsUrl, reconnect: false });
  maxPayload = nc.info!.max_payload;
  await nc.close();
  ({ connectionId } = await gw.connections.create({ customerId: 'cust-fleet-pages', provider: 'samsara', environment: 'sandbox' }));
  const config = await gw.connections.configure(connectionId, {
    status: 'active',
    purposes: { vehicles: true, groupMemberships: false, trips: false },
    approvedVehicleIds: SOURCES,
    selectedSignals: ['odometer', 'engineHours'],
    optIns: { groupInventory: false, vehicleMetadata: false, extendedTelemetry: true },
  });
  await waitProjectedEverywhere(gw, config);
  key = await consumerKey(gw, 'fleet pages', [connectionId]);
  ids = SOURCES.map((sourceId) => vehicleId({ connectionId, provider: 'samsara', sourceId })).sort();

  // Odometer and engine hours of each vehicle over one day of the window (its own day; 686
  // observations in one batch; per-vehicle and per-step speeds, so the hourly amounts differ). A
  // report's size is its 744 intervals per counter whatever the data (an unobserved hour is
  // `amount: null`): a report of this sparse data is within a few bytes of one observed all month
  // (~275 KB either way), while 31 days every 30 minutes made each hourly report take ~2 s to
  // compute in-process under jest (~50 ms in plain node on the built dist), a page three times
  // that — this test is about the page's bytes, not compute time.
  const fetchedAt = new Date().toISOString();
  const records: Observation[] = SOURCES.flatMap((vehicleSourceId, v) =>
    Array.from({ length: DAY / STEP_MS + 1 }, (_x, step): Observation[] => {
      const base = { provider: 'samsara' as const, vehicleSourceId, observedAt: new Date(START_MS + (4 * v + 1) * DAY + step * STEP_MS).toISOString(), fetchedAt };
      return [
        { ...base, metric: 'odometer', source: 'samsara:obdOdometerMeters', value: { meters: 100_000 * (v + 1) + step * (1_000 + v * 100) + (step % 7) * 50 } },
        { ...base, metric: 'engineHours', source: 'samsara:obdEngineSeconds', value: { seconds: 36_000 + step * (600 + v * 60) } },
      ];
    }).flat(),
  );
  const schema = gw.telemetryIngest!.runtime.orm.em.config.get('schema');
  const sql = <T>(text: string, params: unknown[] = []) => execute<T>(gw.telemetryIngest!, text.replaceAll('$telemetry.', `"${schema}".`), params);
  await ingestObservations({ sql }, gw.bus, { connectionId, provider: 'samsara' }, records);
}, 60_000);

afterAll(async () => {
  await gw?.close();
});

it('pages an hourly 31-day fleet report within one NATS reply each; the pages list every vehicle once, with its own figures', async () => {
  const pages: FleetPage[] = [];
  const sizes: number[] = [];
  let cursor: string | null = null;
  do {
    const res = await get(`/utilization?${Q}&limit=100${cursor === null ? '' : `&cursor=${cursor}`}`);
    expect({ page: pages.length, status: res.status }).toEqual({ page: pages.length, status: 200 });
    const page = res.body as FleetPage;
    expect(page.vehicles.length).toBeGreaterThanOrEqual(1);
    // The page travelled as one core NATS reply: it is smaller than the server's max_payload.
    expect(Buffer.byteLength(res.text)).toBeLessThan(maxPayload);
    pages.push(page);
    sizes.push(Buffer.byteLength(res.text));
    cursor = page.nextCursor;
  } while (cursor !== null && pages.length <= ids.length);

  // The first page ends at the byte budget, far under `limit`: fewer vehicles than the fleet, and a cursor.
  expect(pages[0]!.vehicles.length).toBeLessThan(ids.length);
  expect(pages[0]!.nextCursor).not.toBeNull();
  const listed = pages.flatMap((p) => p.vehicles);
  expect(listed.map((v) => v.vehicleId)).toEqual(ids);
  // The seeding is large enough: the whole fleet would not fit one reply.
  const fleetBytes = listed.reduce((s, v) => s + Buffer.byteLength(JSON.stringify(v)), 0);
  expect(fleetBytes).toBeGreaterThan(maxPayload);

  // Each vehicle's figures in the fleet pages are its own report's (read one at a time), intervals included.
  let reportBytes = 0;
  for (const v of listed) {
    const one = await get(`/vehicles/${v.vehicleId}/utilization?${Q}`);
    expect(one.status).toBe(200);
    expect(v).toEqual(one.body);
    reportBytes = Math.max(reportBytes, Buffer.byteLength(one.text));
    // Real figures: the observed day's hours have amounts, distance and engine runtime are counted.
    expect(v.distance.intervals).toHaveLength(31 * 24);
    expect(v.distance.intervals!.filter((i) => i.amount !== null).length).toBeGreaterThanOrEqual(24);
    expect(v.distance.value).toBeGreaterThan(0);
    expect(v.engineRuntime.value).toBeGreaterThan(0);
  }
  console.log(
    `[usage-fleet-pages] ${ids.length} vehicles, hourly over 31 days: ${pages.length} pages of ${pages.map((p) => p.vehicles.length).join('/')} vehicles, ` +
      `page bytes ${sizes.join('/')} (NATS max_payload ${maxPayload}), one vehicle's report up to ${reportBytes} bytes, whole fleet ${fleetBytes} bytes`,
  );
}, 60_000);
