/**
 * What every seeding module shares (directory-, telemetry-, fault-, usage- and enrichment-seed):
 * - `seedThroughContext`: a gateway fixture (gateway-fixture.mjs) with one Samsara connection and a
 *   consumer key granted `permissions` on it, a bus in the fixture's namespace, the context started
 *   in-process on its own isolated schema for the seeding only (migrating it), then `seed(...)`;
 *   everything started is closed afterwards, newest first, and a failure also drops the fixture;
 * - `publishEmptyHiddenSet`: the directory's (empty) hidden-vehicle set, published and awaited in
 *   the context's projection — every context hides a connection's vehicles until that set has
 *   arrived (decision 0029), so a read seed without it serves nothing;
 * - `seedBatch` / `ingestAndWait`: an ingest batch as a collector builds it (one unit, fencing token
 *   1, stable batch id), published on its context's subject (the orchestrator's own
 *   `publishIngestBatch`) and awaited until the context's ledger says `committed`.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { ALL_STREAMS, createBus, EVENTS, ingestBatchId, subjectFor } from '@switchyard/messaging';
import { publishIngestBatch } from '@switchyard/sync-orchestrator';
import { createGatewayFixture, dropGatewayFixture, serviceStartOptions, withGatewayOrm } from './gateway-fixture.mjs';

/**
 * `start(common, defer)` starts the context with `common` (its schema, the bus, sandbox, migrate on
 * start, loopback health port) plus its own options; `defer(close)` registers anything else it
 * started (a simulator) to be closed with it. `seed({ fixture, bus, context, orm, config })` fills it.
 */
export async function seedThroughContext({ service, permissions = ['read'], start, seed }) {
  const fixture = await createGatewayFixture();
  const closers = [];
  const closeAll = async (quiet) => {
    for (const close of closers.splice(0).reverse()) await (quiet ? close().catch(() => undefined) : close());
  };
  try {
    let config;
    await withGatewayOrm(fixture, async (_orm, { credentials, connections }) => {
      config = await connections.create({ customerId: 'bench-customer', provider: 'samsara', environment: 'sandbox' });
      const key = await credentials.createConsumerKey('bench');
      await credentials.grantConsumer(key.id, config.connectionId, permissions);
      fixture.connectionId = config.connectionId;
      fixture.token = key.token;
      fixture.lookupId = key.token.slice(3, 15);
    });
    const bus = await createBus({ kind: 'jetstream', servers: fixture.natsUrl, name: 'bench-seed', namespace: fixture.namespace });
    closers.push(() => bus.close());
    await bus.ensureStreams(ALL_STREAMS); // the provisioning step (decision 0033): services only verify the streams
    const context = await start(serviceStartOptions(fixture, service, bus, 'warn'), (close) => closers.push(close));
    closers.push(() => context.close());
    await seed({ fixture, bus, context, orm: context.runtime.orm, config });
    return fixture;
  } catch (error) {
    await closeAll(true);
    await dropGatewayFixture(fixture).catch(() => undefined);
    throw error;
  } finally {
    await closeAll(false);
  }
}

/** Publishes the directory's empty hidden set of the fixture's connection and waits until the context (`orm`) holds it. */
export async function publishEmptyHiddenSet(fixture, bus, orm, timeoutMs = 60_000) {
  const visibility = { connectionId: fixture.connectionId, sequence: '1', configRevision: 1, computedAt: new Date().toISOString(), hidden: [] };
  await bus.publish(EVENTS.vehicleVisibility, subjectFor(EVENTS.vehicleVisibility.subject, fixture.connectionId), visibility, { msgId: `bench-visibility-${fixture.connectionId}` });
  const table = `"${orm.config.get('schema')}"."vehicle_visibility"`;
  const deadline = Date.now() + timeoutMs;
  while ((await orm.em.fork().getConnection().execute(`select 1 from ${table} where connection_id = ?::uuid`, [fixture.connectionId])).length === 0) {
    if (Date.now() > deadline) throw new Error(`${orm.config.get('schema')}: the hidden set did not arrive within ${timeoutMs} ms`);
    await sleep(100);
  }
}

/** One ingest batch of the fixture's connection as a collector builds it (unit `unitId`, fencing token 1, page `p`). */
export function seedBatch(fixture, { kind, unitId = '1', part = 0, records, fetchedAt, final = true }) {
  return {
    batchId: ingestBatchId({ connectionId: fixture.connectionId, kind, unitId, fencingToken: '1', pageKey: 'p', part }),
    connectionId: fixture.connectionId,
    provider: 'samsara',
    syncId: 'sync_01JD0000000000000000000000',
    unitId,
    fencingToken: '1',
    kind,
    records,
    fetchedAt,
    providerCursor: null,
    final,
  };
}

/** Publishes `batches` on their context's subject, then waits until every one is committed in the context's ledger. */
export async function ingestAndWait(bus, orm, batches) {
  for (const batch of batches) await publishIngestBatch(bus, batch);
  for (const batch of batches) await untilCommitted(orm, batch.batchId);
}

/** Polls the context's `ingest_batch` ledger until `batchId` is committed. */
async function untilCommitted(orm, batchId, timeoutMs = 60_000) {
  const table = `"${orm.config.get('schema')}"."ingest_batch"`;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const [row] = await orm.em.fork().getConnection().execute(`select status from ${table} where batch_id = ?`, [batchId]);
    if (row?.status === 'committed') return;
    if (Date.now() > deadline) throw new Error(`${orm.config.get('schema')} batch ${batchId} not committed after ${timeoutMs} ms (status ${row?.status ?? 'none'})`);
    await sleep(20);
  }
}
