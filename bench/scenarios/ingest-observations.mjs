/**
 * ingest-observations: about a million observations through the collection pipeline's producing
 * half → JetStream → telemetry-ingest commit, end to end, against a raw COPY of the same rows.
 *
 * Test data (untimed, `ready`): the Samsara adapter (`createSamsaraAdapter`, all nine metrics, the
 * collectors' per-account budget rate 140/s + 10) pages `telemetryHistory` per vehicle × day from the
 * Samsara simulator child (fixed clock) until BENCH_OBSERVATIONS (default 1,000,000) observations
 * are collected; each adapter page is one NDJSON line in a temp file (trimmed to exactly N).
 *
 * - candidate: every page, in file order, becomes batches through the collectors' own batch builder
 *   (`pageBatches` of @switchyard/sync-orchestrator: `splitIngestRecords` into ≤ 2,000-record /
 *   ≤ 960 KB parts, stable `ingestBatchId`s) for a unit per vehicle × day, and is published by the
 *   collectors' own publisher (`publishIngestBatch`: `ingest.telemetry.<connectionId>`, msgId =
 *   batchId), 4 in flight = COLLECTOR_CONCURRENCY's default. The telemetry-ingest
 *   service runs as its own process on its durable and commits history + latest readings + ledger
 *   in one transaction per batch, then publishes a receipt. Timed from the first publish to the
 *   last receipt received here. Not covered: leasing, the unit batch ledger and receipt bookkeeping
 *   of the orchestrator (internal telemetryHistory runs arrived on main while this was written; a
 *   variant driving one is the next step), and the provider fetch (done before timing, so the
 *   ratio is about the pipeline, not the simulator).
 * - baseline: the same rows (same mapping: `vehicleId`, `numericValue`) in COPY text format streamed
 *   through `pg-copy-streams` into an identically indexed, identically partitioned table (LIKE …
 *   INCLUDING ALL: same primary key), one COPY, one connection. Timed from the first byte read to the
 *   COPY's completion.
 * Both sides start each round on empty tables (TRUNCATE, untimed) and are verified after timing:
 * N rows stored, and every receipt `committed` with records summing to N.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { Readable } from 'node:stream';
import pg from 'pg';
import copyStreams from 'pg-copy-streams';
import { vehicleId } from '@switchyard/domain';
import { createBus, EVENTS, subjectFor } from '@switchyard/messaging';
import { createSamsaraAdapter, TokenBucketBudget } from '@switchyard/providers';
import { pageBatches, PROVIDER_RATES, publishIngestBatch } from '@switchyard/sync-orchestrator';
import { copyLine, numericValue } from '@switchyard/telemetry-ingest';
import { connectionConfig } from '../../libs/testing/dist/ingest-harness.js';
import { pollUntil } from '../../libs/testing/dist/poll.js';
import { createGatewayFixture, dropGatewayFixture } from '../lib/gateway-fixture.mjs';
import { dropSchemas } from '../lib/isolation.mjs';
import { ndjsonWriter, readNdjson } from '../lib/ndjson.mjs';

const DAY = 86_400_000;
const METRICS = ['location', 'odometer', 'engineHours', 'totalIdleTime', 'speed', 'heading', 'fuelPercent', 'batteryVoltage', 'engineState'];
const COLUMNS = ['connection_id', 'vehicle_id', 'metric', 'observed_at', 'source', 'provider', 'vehicle_source_id', 'value', 'value_num', 'units', 'fetched_at', 'batch_id'];
/** Collector jobs run in parallel by default (COLLECTOR_CONCURRENCY), each publishing its pages one by one. */
const PUBLISH_IN_FLIGHT = 4;
const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

function positiveEnv(name, fallback) {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1) throw new Error(`${name} must be a positive integer, got "${raw}"`);
  return n;
}

const syncIdOf = () => `sync_${Array.from(randomBytes(26), (b) => CROCKFORD[b % 32]).join('')}`;

async function withClient(fixture, fn) {
  const client = new pg.Client({ connectionString: fixture.databaseUrl });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/** Fetches observations page by page (vehicle × day units, newest day first) until `wanted`; returns the count and span. */
async function collectTestData(fixture, print) {
  const adapter = createSamsaraAdapter({
    provider: 'samsara',
    baseUrl: fixture.support.simulator,
    credentials: { apiToken: fixture.simulator.tokens[0] },
    budget: new TokenBucketBudget(PROVIDER_RATES.samsara.ratePerSecond, PROVIDER_RATES.samsara.burst),
  });
  const vehicles = [];
  for (let cursor = null, more = true; more; ) {
    const page = await adapter.vehicles(cursor);
    vehicles.push(...page.items.map((v) => v.sourceId));
    cursor = page.next;
    more = cursor !== null;
  }
  const out = ndjsonWriter(fixture.dataFile);
  const wanted = fixture.observations;
  let written = 0;
  let minAt = Infinity;
  let maxAt = -Infinity;
  let units = 0;
  const started = Date.now();
  const dayStart = Math.floor(fixture.simulator.nowMs / DAY) * DAY;
  for (let d = 1; written < wanted && d <= 366; d++) {
    const from = new Date(dayStart - d * DAY).toISOString();
    const to = new Date(dayStart - (d - 1) * DAY).toISOString();
    const queue = [...vehicles];
    const worker = async () => {
      for (let v = queue.shift(); v !== undefined && written < wanted; v = queue.shift()) {
        const unit = ++units;
        for (let cursor = null, more = true; more && written < wanted; ) {
          const page = await adapter.telemetryHistory({ from, to, metrics: METRICS, vehicleSourceIds: [v], cursor });
          const items = page.items.slice(0, wanted - written);
          written += items.length;
          for (const o of items) {
            const at = Date.parse(o.observedAt);
            if (at < minAt) minAt = at;
            if (at > maxAt) maxAt = at;
          }
          more = page.next !== null;
          await out.write({ unit, vehicle: v, day: from.slice(0, 10), pageKey: cursor ?? 'start', next: page.next, last: !more || written >= wanted, items });
          cursor = page.next;
        }
      }
    };
    await Promise.all(Array.from({ length: 8 }, worker));
  }
  await out.close();
  if (written < wanted) throw new Error(`the simulator's fleet gave only ${written} observations in a year; raise the fleet size`);
  print(`   test data: ${written} observations of ${vehicles.length} vehicles, ${units} vehicle-day units, fetched in ${((Date.now() - started) / 1000).toFixed(1)} s (untimed)`);
  return { written, minAt, maxAt };
}

function monthsBetween(minAt, maxAt) {
  const months = [];
  const first = new Date(minAt);
  for (let y = first.getUTCFullYear(), m = first.getUTCMonth(); Date.UTC(y, m, 1) <= maxAt; m === 11 ? ((m = 0), y++) : m++) months.push([y, m]);
  return months;
}

async function runBaseline(fixture) {
  const connectionId = randomUUID();
  const batchId = `copy_${randomBytes(8).toString('hex')}`;
  // The least mapping: each vehicle's id minted once (as the consumer does), not once per row.
  const ids = new Map();
  const idOf = (sourceId) => ids.get(sourceId) ?? ids.set(sourceId, vehicleId({ connectionId, provider: 'samsara', sourceId })).get(sourceId);
  return withClient(fixture, async (client) => {
    const started = performance.now();
    const lines = Readable.from(
      (async function* rows() {
        for await (const page of readNdjson(fixture.dataFile)) {
          let chunk = '';
          for (const o of page.items) {
            chunk += copyLine([
              connectionId,
              idOf(o.vehicleSourceId),
              o.metric,
              o.observedAt,
              o.source,
              o.provider,
              o.vehicleSourceId,
              o.value,
              numericValue(o),
              o.units ?? null,
              o.fetchedAt,
              batchId,
            ]);
          }
          yield chunk;
        }
      })(),
    );
    await pipeline(lines, client.query(copyStreams.from(`copy "${fixture.copySchema}".observations (${COLUMNS.join(', ')}) from stdin`)));
    const ms = performance.now() - started;
    const { rows } = await client.query(`select count(*)::int as n from "${fixture.copySchema}".observations where connection_id = $1`, [connectionId]);
    if (rows[0].n !== fixture.observations) throw new Error(`baseline stored ${rows[0].n} rows, want ${fixture.observations}`);
    return { units: fixture.observations, ms };
  });
}

async function runCandidate(fixture, round, ingestProcess) {
  const bus = await createBus({ kind: 'jetstream', servers: fixture.natsUrl, name: 'bench-collector', namespace: fixture.namespace });
  try {
    // The connection must be known to telemetry-ingest (its config projection) before its batches (untimed).
    const config = connectionConfig({ provider: 'samsara' });
    await bus.publish(EVENTS.connectionConfigChanged, subjectFor(EVENTS.connectionConfigChanged.subject, config.connectionId), config, { msgId: `${config.connectionId}:${config.revision}` });
    await withClient(fixture, (client) =>
      pollUntil(async () => (await client.query(`select 1 from "${fixture.schemas['telemetry-ingest']}".connection_config where connection_id = $1`, [config.connectionId])).rowCount === 1, {
        timeoutMs: 30_000,
        description: 'connection config in telemetry-ingest',
      }),
    );
    const syncId = syncIdOf();
    const receipts = new Map();
    let published = 0;
    let publishing = true;
    let lastReceiptAt = 0;
    const sub = await bus.consume(
      { durable: `bench-receipts-${round}-${randomBytes(3).toString('hex')}`, event: EVENTS.receipt, ackWaitMs: 60_000, maxDeliver: 3, maxAckPending: 512 },
      async ({ payload }) => {
        if (payload.syncId !== syncId) return;
        receipts.set(payload.batchId, payload);
        lastReceiptAt = performance.now();
      },
    );
    try {
      const cpuBefore = (await ingestProcess.resourceUsage()).cpuUs;
      const started = performance.now();
      const inFlight = new Set();
      for await (const page of readNdjson(fixture.dataFile)) {
        const unit = { unitId: String(page.unit), connectionId: config.connectionId, syncId, fencingToken: String(round) };
        const batches = pageBatches({ unit, provider: 'samsara', kind: 'observations', records: page.items, pageKey: page.pageKey, providerCursor: page.next, last: page.last, fetchedAt: new Date().toISOString() });
        for (const batch of batches) {
          while (inFlight.size >= PUBLISH_IN_FLIGHT) await Promise.race(inFlight);
          const p = publishIngestBatch(bus, batch).finally(() => inFlight.delete(p));
          inFlight.add(p);
          published++;
        }
      }
      await Promise.all(inFlight);
      publishing = false;
      const publishedMs = performance.now() - started;
      await pollUntil(() => !publishing && receipts.size === published, { timeoutMs: 30 * 60_000, intervalMs: 20, description: `${published} receipts` });
      const ms = lastReceiptAt - started;
      // CPU the telemetry-ingest process spent (parsing, mapping, ORM, logging): near `ms` means the
      // consumer's own event loop, not PostgreSQL, bounds the pipeline.
      const ingestCpuMs = ((await ingestProcess.resourceUsage()).cpuUs - cpuBefore) / 1000;
      const records = [...receipts.values()].reduce((n, r) => n + r.records, 0);
      const notCommitted = [...receipts.values()].filter((r) => r.status !== 'committed');
      if (notCommitted.length) throw new Error(`${notCommitted.length} batches not committed, e.g. ${JSON.stringify(notCommitted[0])}`);
      if (records !== fixture.observations) throw new Error(`receipts count ${records} records, want ${fixture.observations}`);
      const stored = await withClient(fixture, async (client) => (await client.query(`select count(*)::int as n from "${fixture.schemas['telemetry-ingest']}".observations where connection_id = $1`, [config.connectionId])).rows[0].n);
      if (stored !== fixture.observations) throw new Error(`telemetry-ingest stored ${stored} rows, want ${fixture.observations}`);
      return {
        units: fixture.observations,
        ms,
        details: { batches: published, publishedMs, ingestCpuMs },
        lines: [`${published} batches; all published after ${(publishedMs / 1000).toFixed(2)} s, last receipt after ${(ms / 1000).toFixed(2)} s; telemetry-ingest CPU ${(ingestCpuMs / 1000).toFixed(2)} s (${((100 * ingestCpuMs) / ms).toFixed(0)} % of the wall time)`],
      };
    } finally {
      await sub.drain().catch(() => undefined);
    }
  } finally {
    await bus.close();
  }
}

export default {
  kind: 'job',
  name: 'ingest-observations',
  title: 'observations: collector batch builder → JetStream → telemetry-ingest commit, vs raw COPY',
  unit: 'rows',
  rounds: 3,
  baseline: { label: 'COPY (pg-copy-streams) into an identically indexed table' },
  candidate: { label: 'pageBatches + publish → JetStream → telemetry-ingest (own process) → receipt' },
  support: [
    { label: 'simulator', module: new URL('../servers/samsara-simulator.mjs', import.meta.url) },
    { label: 'telemetry-ingest', module: new URL('../servers/context-service.mjs?service=telemetry-ingest', import.meta.url) },
  ],

  async setup() {
    const fixture = await createGatewayFixture();
    fixture.observations = positiveEnv('BENCH_OBSERVATIONS', 1_000_000);
    fixture.simulator = { tokens: [`samsara_api_${randomBytes(20).toString('hex')}`], vehicles: positiveEnv('BENCH_VEHICLES', 50), seed: 'bench-ingest', nowMs: Date.UTC(2026, 10, 20, 12) };
    fixture.copySchema = `benchcopy_${fixture.schemas['telemetry-ingest'].split('_').pop()}`;
    fixture.dataDir = mkdtempSync(join(os.tmpdir(), 'bench-ingest-'));
    fixture.dataFile = join(fixture.dataDir, 'observations.ndjson');
    return fixture;
  },

  async ready(fixture, { print }) {
    const { minAt, maxAt } = await collectTestData(fixture, print);
    const telemetry = fixture.schemas['telemetry-ingest'];
    await withClient(fixture, async (client) => {
      await client.query(`create schema "${fixture.copySchema}"`);
      await client.query(`create table "${fixture.copySchema}".observations (like "${telemetry}".observations including all) partition by range (observed_at)`);
      // The ingest statement draws each row's `seq` (migration 0003) from observation_seq; the COPY
      // baseline draws it the same way, as the column default of its copy.
      await client.query(`create sequence "${fixture.copySchema}".observation_seq`);
      await client.query(`alter table "${fixture.copySchema}".observations alter column seq set default nextval('"${fixture.copySchema}".observation_seq')`);
      for (const [y, m] of monthsBetween(minAt, maxAt)) {
        const name = `observations_y${y}m${String(m + 1).padStart(2, '0')}`;
        await client.query(`create table "${fixture.copySchema}".${name} partition of "${fixture.copySchema}".observations for values from ('${new Date(Date.UTC(y, m, 1)).toISOString()}') to ('${new Date(Date.UTC(y, m + 1, 1)).toISOString()}')`);
      }
    });
  },

  async prepare(fixture, side) {
    await withClient(fixture, (client) =>
      side === 'baseline'
        ? client.query(`truncate "${fixture.copySchema}".observations`)
        : client.query(`truncate "${fixture.schemas['telemetry-ingest']}".observations, "${fixture.schemas['telemetry-ingest']}".latest_readings`),
    );
  },

  run(fixture, side, { round, children }) {
    return side === 'baseline' ? runBaseline(fixture) : runCandidate(fixture, round, children['telemetry-ingest']);
  },

  async teardown(fixture) {
    rmSync(fixture.dataDir, { recursive: true, force: true });
    await dropSchemas(fixture.databaseUrl, [fixture.copySchema]).catch(() => undefined);
    await dropGatewayFixture(fixture);
  },
};
