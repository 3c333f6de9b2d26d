/**
 * Fault-feed seeding for the fault-events-page scenario: a gateway fixture (lib/gateway-fixture.mjs)
 * with one Samsara connection and one consumer key granted `read` on it, and fault transitions
 * written **through fault-feed's real ingest**: the parent starts the built fault-feed in-process
 * for the seeding only (migrating its isolated schema), stores the connection's configuration in
 * its projection, publishes complete-snapshot batches on the INGEST stream as the collectors do and
 * waits until each committed, then stops it. The measured fault-feed is a separate child.
 * Data: `vehicles` vehicles, `rounds` snapshots each; a vehicle's snapshot alternates between
 * fault sets {a} and {b}, so every round after the first clears one occurrence and opens another
 * (vehicles × (2 × rounds − 1) transitions; 100 × 30 → 5,900).
 */
import { INGEST_MAX_RECORDS } from '@switchyard/messaging';
import { ConnectionConfigStore } from '@switchyard/service-kit';
import { startFaultFeed } from '@switchyard/fault-feed';
import { chunks, vehicleSourceIds } from './directory-seed.mjs';
import { ingestAndWait, seedBatch, seedThroughContext } from './context-seed.mjs';
import { dropGatewayFixture } from './gateway-fixture.mjs';

const code = (key) => ({ faultKey: key, code: key.replace(/^j1939:0:spn(\d+):fmi(\d+)$/, 'SPN $1 FMI $2'), description: null });

export function createFaultFeedFixture({ vehicles = 100, rounds = 30 } = {}) {
  return seedThroughContext({
    service: 'fault-feed',
    start: (common) => startFaultFeed(common),
    seed: async ({ fixture, bus, orm, config }) => {
      await new ConnectionConfigStore(orm).apply(config);
      const sourceIds = vehicleSourceIds(vehicles);
      const start = Date.now() - rounds * 60_000;
      let unit = 0;
      for (let round = 0; round < rounds; round++) {
        const at = new Date(start + round * 60_000).toISOString();
        const records = sourceIds.map((v) => ({ model: 'complete_snapshot', provider: 'samsara', vehicleSourceId: v, observedAt: at, active: [code(round % 2 === 0 ? 'j1939:0:spn110:fmi0' : 'j1939:0:spn190:fmi2')], fetchedAt: at }));
        // One batch at a time: a round's snapshots must commit before the next round's (they alternate).
        for (const [part, chunk] of chunks(records, INGEST_MAX_RECORDS.fault_snapshots).entries()) {
          await ingestAndWait(bus, orm, [seedBatch(fixture, { kind: 'fault_snapshots', unitId: String(++unit), part, records: chunk, fetchedAt: at })]);
        }
      }
      for (const table of ['fault_transition', 'fault_occurrence']) await orm.em.fork().getConnection().execute(`analyze "${fixture.schemas['fault-feed']}"."${table}"`);
      fixture.seeded = { vehicles, rounds, transitions: vehicles * (2 * rounds - 1), via: 'fault-feed ingest (INGEST stream → fault-feed consumer)' };
    },
  });
}

export { dropGatewayFixture as dropFaultFeedFixture };
