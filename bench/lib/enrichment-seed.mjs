/**
 * Enrichment seeding for the vehicle-profile scenario: a gateway fixture (lib/gateway-fixture.mjs)
 * with one Samsara connection and a consumer key granted `read`, and `vehicles` vehicles whose
 * products are produced **by the enrichment context's real pipeline**: the parent starts the built
 * enrichment in-process for the seeding only (migrating its isolated schema) beside the sandbox's
 * AutoSpec vendor simulator, publishes the connection's hidden set (empty) and one
 * `events.vehicle.vin` event per vehicle (the VINs of a sandbox fleet: real makes and models, 5 %
 * without a VIN) as the directory does, waits until no product is pending, then stops both. The
 * measured enrichment is a separate child (scenario `support`) with no vendor: nothing is due, it
 * only serves reads.
 * Also measures the identity decode throughput (VINs/s) of VinIdentityDecoder over the fleet's
 * VINs, cold (a fresh decoder: every model's vPIC patterns queried) and warm (the same VINs again),
 * printed and kept in `fixture.seeded.decode`.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { vehicleId } from '@switchyard/domain';
import { startEnrichment, VinIdentityDecoder, VpicDatabase } from '@switchyard/enrichment';
import { EVENTS, subjectFor } from '@switchyard/messaging';
import { createFleet, startVendorSimulator } from '@switchyard/sandbox';
import { vehicleSourceIds } from './directory-seed.mjs';
import { publishEmptyHiddenSet, seedThroughContext } from './context-seed.mjs';
import { dropGatewayFixture } from './gateway-fixture.mjs';

const VENDOR_KEY = 'bench-autospec-key';

async function untilSettled(orm, expected, timeoutMs = 300_000) {
  const table = `"${orm.config.get('schema')}"."enrichment_product"`;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const [row] = await orm.em.fork().getConnection().execute(`select count(*) filter (where status <> 'pending')::int as done from ${table}`);
    if (row?.done === expected) return;
    if (Date.now() > deadline) throw new Error(`enrichment not settled after ${timeoutMs} ms (${row?.done ?? 0} of ${expected} products)`);
    await sleep(200);
  }
}

/** VINs/s of the offline identity decoder over `vins`, cold then warm. */
export async function decodeThroughput(vins) {
  const database = await VpicDatabase.open();
  try {
    const decoder = new VinIdentityDecoder(database);
    const pass = async () => {
      const start = performance.now();
      for (const vin of vins) await decoder.decode(vin);
      return performance.now() - start;
    };
    const coldMs = await pass();
    const warmMs = await pass();
    const rate = (ms) => Math.round((vins.length / ms) * 1_000 * 10) / 10;
    return { vins: vins.length, coldMs: Math.round(coldMs), coldVinsPerSecond: rate(coldMs), warmMs: Math.round(warmMs), warmVinsPerSecond: rate(warmMs) };
  } finally {
    await database.close();
  }
}

export function createEnrichmentFixture({ vehicles = 100 } = {}) {
  return seedThroughContext({
    service: 'enrichment',
    start: async (common, defer) => {
      const vendor = await startVendorSimulator({ apiKey: VENDOR_KEY, ratePerSecond: 1_000 });
      defer(() => vendor.close());
      return startEnrichment({
        ...common,
        vendorBaseUrl: vendor.url,
        env: { ...process.env, ENRICHMENT_VENDOR_API_KEY: VENDOR_KEY, ENRICHMENT_POLL_MS: '50', ENRICHMENT_VENDOR_RATE_PER_SECOND: '1000', ENRICHMENT_VENDOR_BURST: '1000' },
      });
    },
    seed: async ({ fixture, bus, orm }) => {
      const now = new Date().toISOString();
      await publishEmptyHiddenSet(fixture, bus, orm);
      const fleet = createFleet({ seed: 'bench-enrichment', vehicles }).vehicles();
      const sourceIds = vehicleSourceIds(vehicles);
      const vcl = (sourceId) => vehicleId({ connectionId: fixture.connectionId, provider: 'samsara', sourceId });
      for (const [i, sourceId] of sourceIds.entries()) {
        const event = { connectionId: fixture.connectionId, vehicleId: vcl(sourceId), vin: fleet[i]?.vin ?? null, sequence: '1', changedAt: now };
        await bus.publish(EVENTS.vehicleVin, subjectFor(EVENTS.vehicleVin.subject, fixture.connectionId), event, { msgId: `bench-vin-${event.vehicleId}` });
      }
      await untilSettled(orm, vehicles * 4);
      for (const table of ['enrichment_vehicle', 'enrichment_product', 'vehicle_visibility']) await orm.em.fork().getConnection().execute(`analyze "${fixture.schemas.enrichment}"."${table}"`);
      fixture.vehicleIds = sourceIds.filter((_, i) => fleet[i]?.vin).map(vcl).sort();
      const decode = await decodeThroughput(fleet.map((v) => v.vin).filter((v) => v !== null));
      console.log(`identity decode (VinIdentityDecoder, node:sqlite vPIC): ${decode.vins} VINs cold ${decode.coldMs} ms = ${decode.coldVinsPerSecond} VINs/s; warm ${decode.warmMs} ms = ${decode.warmVinsPerSecond} VINs/s`);
      fixture.seeded = { vehicles, via: 'enrichment pipeline (events.vehicle.vin → worker → vPIC + AutoSpec simulator)', decode };
    },
  });
}

export { dropGatewayFixture as dropEnrichmentFixture };
