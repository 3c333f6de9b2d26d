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
import { setTimeout as sleep } from 'node:timers/promises';
import { createBus, EVENTS, INGEST_MAX_RECORDS, ingestBatchId, subjectFor } from '@switchyard/messaging';
import { ConnectionConfigStore } from '@switchyard/service-kit';
import { startFaultFeed } from '@switchyard/fault-feed';
import { chunks, vehicleSourceIds } from './directory-seed.mjs';
import { createGatewayFixture, dropGatewayFixture, withGatewayOrm } from './gateway-fixture.mjs';

async function untilCommitted(orm, batchId, timeoutMs = 60_000) {
  const table = `"${orm.config.get('schema')}"."ingest_batch"`;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const [row] = await orm.em.fork().getConnection().execute(`select status from ${table} where batch_id = ?`, [batchId]);
    if (row?.status === 'committed') return;
    if (Date.now() > deadline) throw new Error(`fault batch ${batchId} not committed after ${timeoutMs} ms (status ${row?.status ?? 'none'})`);
    await sleep(20);
  }
}

const code = (key) => ({ faultKey: key, code: key.replace(/^j1939:0:spn(\d+):fmi(\d+)$/, 'SPN $1 FMI $2'), description: null });

export async function createFaultFeedFixture({ vehicles = 100, rounds = 30 } = {}) {
  const fixture = await createGatewayFixture();
  let bus;
  let context;
  try {
    let config;
    await withGatewayOrm(fixture, async (_orm, { credentials, connections }) => {
      config = await connections.create({ customerId: 'bench-customer', provider: 'samsara', environment: 'sandbox' });
      const key = await credentials.createConsumerKey('bench');
      await credentials.grantConsumer(key.id, config.connectionId, ['read']);
      fixture.connectionId = config.connectionId;
      fixture.token = key.token;
    });
    bus = await createBus({ kind: 'jetstream', servers: fixture.natsUrl, name: 'bench-seed', namespace: fixture.namespace });
    context = await startFaultFeed({
      databaseUrl: fixture.databaseUrl,
      bus,
      environment: 'sandbox',
      schema: fixture.schemas['fault-feed'],
      allServiceSchemas: Object.values(fixture.schemas),
      migrateOnStart: true,
      logLevel: 'warn',
      http: { port: 0, host: '127.0.0.1' },
    });
    const orm = context.runtime.orm;
    await new ConnectionConfigStore(orm).apply(config);
    const sourceIds = vehicleSourceIds(vehicles);
    const start = Date.now() - rounds * 60_000;
    let unit = 0;
    for (let round = 0; round < rounds; round++) {
      const at = new Date(start + round * 60_000).toISOString();
      const records = sourceIds.map((v) => ({ model: 'complete_snapshot', provider: 'samsara', vehicleSourceId: v, observedAt: at, active: [code(round % 2 === 0 ? 'j1939:0:spn110:fmi0' : 'j1939:0:spn190:fmi2')], fetchedAt: at }));
      for (const [part, chunk] of chunks(records, INGEST_MAX_RECORDS.fault_snapshots).entries()) {
        const unitId = String(++unit);
        const batch = {
          batchId: ingestBatchId({ connectionId: fixture.connectionId, kind: 'fault_snapshots', unitId, fencingToken: '1', pageKey: 'p', part }),
          connectionId: fixture.connectionId,
          provider: 'samsara',
          syncId: 'sync_01JD0000000000000000000000',
          unitId,
          fencingToken: '1',
          kind: 'fault_snapshots',
          records: chunk,
          fetchedAt: at,
          providerCursor: null,
          final: true,
        };
        await bus.publish(EVENTS.faultBatch, subjectFor(EVENTS.faultBatch.subject, fixture.connectionId), batch, { msgId: batch.batchId });
        await untilCommitted(orm, batch.batchId);
      }
    }
    for (const table of ['fault_transition', 'fault_occurrence']) await orm.em.fork().getConnection().execute(`analyze "${fixture.schemas['fault-feed']}"."${table}"`);
    fixture.seeded = { vehicles, rounds, transitions: vehicles * (2 * rounds - 1), via: 'fault-feed ingest (INGEST stream → fault-feed consumer)' };
    return fixture;
  } catch (error) {
    await context?.close().catch(() => undefined);
    await bus?.close().catch(() => undefined);
    context = undefined;
    bus = undefined;
    await dropGatewayFixture(fixture).catch(() => undefined);
    throw error;
  } finally {
    await context?.close();
    await bus?.close();
  }
}

export { dropGatewayFixture as dropFaultFeedFixture };
