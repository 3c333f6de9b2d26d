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
import { ingestAndWait, publishEmptyHiddenSet, seedBatch, seedThroughContext } from './context-seed.mjs';
import { dropGatewayFixture } from './gateway-fixture.mjs';

const code = (key) => ({ faultKey: key, code: key.replace(/^j1939:0:spn(\d+):fmi(\d+)$/, 'SPN $1 FMI $2'), description: null });

export function createFaultFeedFixture({ vehicles = 100, rounds = 30 } = {}) {
  return seedThroughContext({
    service: 'fault-feed',
    start: (common) => startFaultFeed(common),
    seed: async ({ fixture, bus, orm, config }) => {
      await new ConnectionConfigStore(orm).apply(config);
      await publishEmptyHiddenSet(fixture, bus, orm);
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

/**
 * The timed part of the commit → delivery latency scenarios (fault-subject-latency,
 * webhook-latency): `vehicles` vehicles per round (`bench-r<round>-v<n>`; default 1), an untimed
 * first snapshot of each (its bootstrap open), then `batches` one-vehicle snapshot batches at a
 * steady pace (`gapMs`), the vehicles in turn, each clearing one occurrence and opening another (two
 * transitions), published on INGEST as the collectors do. `onReset` runs after the untimed
 * snapshots (forget what arrived so far). Resolves the vehicles and the timed batches
 * ({ batchId, at }: `at` is the snapshot's observedAt, which every transition of the batch carries).
 */
export async function publishTimedSnapshots(fixture, bus, { round, batches, gapMs, onReset, vehicles = 1 }) {
  const { EVENTS, ingestBatchId, subjectFor } = await import('@switchyard/messaging');
  const names = Array.from({ length: vehicles }, (_, v) => `bench-r${round}-v${v}`);
  const base = Date.UTC(2026, 0, 1) + round * 10 * 86_400_000;
  const send = async (i, vehicle, keys) => {
    const at = new Date(base + i * 1000).toISOString();
    const unitId = String(round * 100_000 + i + 1);
    const batch = {
      batchId: ingestBatchId({ connectionId: fixture.connectionId, kind: 'fault_snapshots', unitId, fencingToken: '1', pageKey: 'p', part: 0 }),
      connectionId: fixture.connectionId,
      provider: 'samsara',
      syncId: 'sync_01JD0000000000000000000000',
      unitId,
      fencingToken: '1',
      kind: 'fault_snapshots',
      records: [{ model: 'complete_snapshot', provider: 'samsara', vehicleSourceId: vehicle, observedAt: at, active: keys.map((k) => ({ faultKey: k, code: k, description: null })), fetchedAt: at }],
      fetchedAt: at,
      providerCursor: null,
      final: true,
    };
    await bus.publish(EVENTS.faultBatch, subjectFor(EVENTS.faultBatch.subject, fixture.connectionId), batch, { msgId: batch.batchId });
    return { batchId: batch.batchId, at };
  };
  for (const [v, vehicle] of names.entries()) await send(v, vehicle, ['j1939:0:spn110:fmi0']);
  await new Promise((r) => setTimeout(r, 1500));
  onReset();
  const sent = [];
  for (let i = 1; i <= batches; i++) {
    // The n-th timed snapshot of a vehicle alternates its fault (its first timed one clears the bootstrap open).
    const turn = Math.ceil(i / vehicles);
    sent.push(await send(vehicles + i, names[(i - 1) % vehicles], [turn % 2 === 0 ? 'j1939:0:spn110:fmi0' : 'j1939:0:spn190:fmi2']));
    await new Promise((r) => setTimeout(r, gapMs));
  }
  return { vehicles: names, batches: sent };
}

/**
 * Waits (at most 60 s) until every batch committed in fault-feed and `delivered()` counts every
 * transition they committed (batches of one vehicle may be applied out of order by concurrent ingest
 * workers: a snapshot older than one already applied changes nothing, so the count is what
 * committed), then resolves each batch's commit time (`ingest_batch.committed_at`, ms).
 */
export async function awaitTimedDelivery(fixture, { vehicles, batches }, delivered) {
  const faults = `"${fixture.schemas['fault-feed']}"`;
  const ids = batches.map((b) => b.batchId);
  let expected = -1;
  for (const deadline = Date.now() + 60_000; Date.now() < deadline; await new Promise((r) => setTimeout(r, 50))) {
    const [c] = await sql(fixture, `select count(*) filter (where status = 'committed')::int as committed from ${faults}.ingest_batch where batch_id = any($1)`, [ids]);
    if (c.committed < batches.length) continue;
    if (expected < 0) {
      const [t] = await sql(fixture, `select count(*)::int as n from ${faults}.fault_transition t join ${faults}.fault_occurrence o on o.id = t.occurrence_id where o.vehicle_source_id = any($1) and t.observed_at >= $2`, [vehicles, batches[0].at]);
      expected = t.n;
    }
    if (delivered() >= expected) break;
  }
  if (expected < 0 || delivered() < expected) throw new Error(`only ${delivered()} of ${expected} committed transitions delivered in 60 s`);
  return new Map((await sql(fixture, `select batch_id, extract(epoch from committed_at) * 1000 as at from ${faults}.ingest_batch where batch_id = any($1)`, [ids])).map((r) => [r.batch_id, Number(r.at)]));
}

async function sql(fixture, text, params = []) {
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: fixture.databaseUrl });
  await client.connect();
  try {
    return (await client.query(text, params)).rows;
  } finally {
    await client.end();
  }
}
