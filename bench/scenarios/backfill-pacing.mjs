/**
 * backfill-pacing: a trips backfill over several days (BENCH_BACKFILL_DAYS, default 7) of
 * BENCH_BACKFILL_VEHICLES (default 20) approved vehicles, created with `POST /v1/syncs
 * {lookbackDays}` and run by the real collectors, against the Samsara simulator enforcing
 * Samsara's limits with token buckets (150 req/s per token, 200 per org; /fleet/vehicles 25/s,
 * /trips/stream 5/s, /fleet/drivers 100/min — sandbox/src/samsara/samsara.simulator.ts).
 *
 * Every process runs as its own child: simulator, gateway (HTTP, credentials for the collectors,
 * config outbox), directory (commits vehicles, groups, trips), telemetry-ingest and fault-feed (idle
 * in a trips backfill, but deployed and consuming), sync-orchestrator (planner, collectors with
 * their production settings: 4 jobs at once, the shared PostgreSQL request budget of 140/s + 10
 * and its per-endpoint tier budgets, Retry-After pauses). Timed from `POST /v1/syncs` to the sync's `completed` (receipts of every
 * unit). Reported from the simulator's side (`/_sim/stats`, reset just before): achieved request
 * rate (accepted requests over each path's active span) against the allowed rate, share of 429s,
 * per path and in total; and the peak RSS of each process during the backfill (job-runner.mjs).
 * No baseline: the allowed rate is the reference.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { pollUntil } from '../../libs/testing/dist/poll.js';
import { createGatewayFixture, dropGatewayFixture, withGatewayOrm } from '../lib/gateway-fixture.mjs';
import { pacingReport } from '../lib/pacing.mjs';

/** Samsara's limits as the simulator enforces them (per token; the org limit of 200/s is higher). */
const SAMSARA_LIMITS = { globalAllowed: 150, tiers: { '/fleet/vehicles': 25, '/trips/stream': 5, '/fleet/drivers': 100 / 60 } };

function positiveEnv(name, fallback) {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isFinite(n) || n <= 0) throw new Error(`${name} must be a positive number, got "${raw}"`);
  return n;
}

async function sql(fixture, text, params = []) {
  const client = new pg.Client({ connectionString: fixture.databaseUrl });
  await client.connect();
  try {
    return (await client.query(text, params)).rows;
  } finally {
    await client.end();
  }
}

const simulatorFetch = (fixture, path, init = {}) => fetch(`${fixture.support.simulator}${path}`, init);

async function gatewayJson(fixture, method, path, body) {
  const res = await fetch(`${fixture.support.gateway}${path}`, {
    method,
    headers: { ...fixture.syncHeaders, ...(body ? { 'content-type': 'application/json' } : {}) },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  const json = await res.json();
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
  return json;
}

const f = (x, d = 1) => (Number.isFinite(x) ? x.toFixed(d) : 'n/a');

export default {
  kind: 'job',
  name: 'backfill-pacing',
  title: 'trips backfill over several days against Samsara-like limits: achieved/allowed request rate, 429 share, peak memory',
  unit: 'requests',
  rounds: 1,
  candidate: { label: 'POST /v1/syncs {lookbackDays} → collectors (production settings) → directory receipts → completed' },
  support: [
    { label: 'simulator', module: new URL('../servers/samsara-simulator.mjs', import.meta.url) },
    { label: 'gateway', module: new URL('../servers/context-service.mjs?service=gateway', import.meta.url) },
    { label: 'directory', module: new URL('../servers/context-service.mjs?service=directory', import.meta.url) },
    { label: 'telemetry-ingest', module: new URL('../servers/context-service.mjs?service=telemetry-ingest', import.meta.url) },
    { label: 'fault-feed', module: new URL('../servers/context-service.mjs?service=fault-feed', import.meta.url) },
    { label: 'orchestrator', module: new URL('../servers/context-service.mjs?service=sync-orchestrator', import.meta.url) },
  ],

  async setup() {
    const fixture = await createGatewayFixture();
    fixture.days = positiveEnv('BENCH_BACKFILL_DAYS', 7);
    fixture.vehicles = Math.round(positiveEnv('BENCH_BACKFILL_VEHICLES', 20));
    // A fixed clock at "now": the sync's interval (request time minus lookbackDays) is the simulator's recent past.
    fixture.simulator = { tokens: [`samsara_api_${randomBytes(20).toString('hex')}`], vehicles: Math.max(fixture.vehicles + 5, 30), seed: 'bench-backfill', nowMs: Date.now() };
    fixture.orchestratorEnv = {};
    return fixture;
  },

  async ready(fixture, { print }) {
    const token = fixture.simulator.tokens[0];
    const listed = await (await simulatorFetch(fixture, '/fleet/vehicles', { headers: { authorization: `Bearer ${token}` } })).json();
    const approved = listed.data.map((v) => v.id).sort().slice(0, fixture.vehicles);
    const seeded = await withGatewayOrm(fixture, async (_orm, { connections, credentials }) => {
      const { connectionId } = await connections.create({ customerId: 'bench-backfill', provider: 'samsara', environment: 'sandbox', providerCredentials: { apiToken: token } });
      const config = await connections.configure(connectionId, { status: 'active', unifiedCollection: true, purposes: { vehicles: true, groupMemberships: true, trips: true }, approvedVehicleIds: approved });
      const app = await credentials.createApplication('bench backfill', 'sandbox');
      await credentials.grantApplication(app.id, connectionId, ['sync.create', 'sync.read'], true);
      const connectionToken = (await credentials.issueConnectionToken(app.id, connectionId)).token;
      return { connectionId, revision: config.revision, applicationId: app.id, headers: { authorization: `Bearer ${app.token}`, 'connection-token': connectionToken } };
    });
    fixture.connectionId = seeded.connectionId;
    fixture.syncHeaders = seeded.headers;
    // The gateway's outbox relay projects the configuration and the grant; wait until the orchestrator and directory see them.
    const s = fixture.schemas;
    for (const schema of [s['sync-orchestrator'], s.directory]) {
      await pollUntil(async () => (await sql(fixture, `select revision from "${schema}".connection_config where connection_id = $1`, [seeded.connectionId]))[0]?.revision === seeded.revision, {
        timeoutMs: 60_000,
        description: `connection config in ${schema}`,
      });
    }
    await pollUntil(async () => (await sql(fixture, `select 1 from "${s['sync-orchestrator']}".application_credential where application_id = $1`, [seeded.applicationId])).length === 1, {
      timeoutMs: 60_000,
      description: 'application grant in the orchestrator',
    });
    print(`   backfill: ${approved.length} approved vehicles × ${fixture.days} days of trips (plus their vehicles and group memberships)`);
  },

  async run(fixture) {
    const reset = await simulatorFetch(fixture, '/_sim/stats', { method: 'DELETE' });
    if (reset.status !== 204) throw new Error(`DELETE /_sim/stats answered ${reset.status}`);
    // 503 service_unavailable means "retry shortly" (the orchestrator's evidence of the grant may still be on its way).
    let created;
    let started;
    await pollUntil(
      async () => {
        started = performance.now();
        created = await gatewayJson(fixture, 'POST', '/v1/syncs', { lookbackDays: fixture.days }).catch((error) => {
          if (/: 503 /.test(error.message)) return undefined;
          throw error;
        });
        return created !== undefined;
      },
      { timeoutMs: 60_000, intervalMs: 1_000, description: 'POST /v1/syncs accepted' },
    );
    let sync = created;
    await pollUntil(
      async () => {
        sync = await gatewayJson(fixture, 'GET', `/v1/syncs/${created.id}`);
        return sync.status === 'completed' || sync.status === 'failed';
      },
      { timeoutMs: 30 * 60_000, intervalMs: 250, description: `sync ${created.id} settled` },
    );
    const ms = performance.now() - started;
    if (sync.status !== 'completed') throw new Error(`the backfill ended ${sync.status}: ${sync.failureReason ?? ''}`);
    const stats = await (await simulatorFetch(fixture, '/_sim/stats')).json();
    const account = stats.accounts[fixture.simulator.tokens[0]];
    if (!account) throw new Error('the simulator counted no request of the backfill account');
    const report = pacingReport(account, SAMSARA_LIMITS);
    const [units] = await sql(fixture, `select count(*)::int as units, count(*) filter (where purpose = 'trips')::int as trips from "${fixture.schemas['sync-orchestrator']}".sync_unit where sync_id = $1`, [created.id]);
    const [stored] = await sql(fixture, `select count(*)::int as trips from "${fixture.schemas.directory}".trip where connection_id = $1`, [fixture.connectionId]);
    const row = (name, p) =>
      `${name.padEnd(18)} ${String(p.requests).padStart(6)} req  ${String(p.rateLimited).padStart(5)} × 429 (${f(100 * p.share429)} %)  accepted ${f(p.acceptedPerSecond)}/s of ${f(p.allowedPerSecond, 2)}/s allowed = ${f(100 * p.achievedOfAllowed)} %  over ${f(p.spanSeconds)} s`;
    return {
      units: account.requests - account.rateLimited,
      ms,
      details: { syncId: created.id, units, storedTrips: stored.trips, pacing: report, byStatus: account.byStatus },
      lines: [
        `sync ${sync.status} in ${f(ms / 1000)} s: ${units.units} units (${units.trips} trip slices), ${stored.trips} trips stored; provider answers ${JSON.stringify(account.byStatus)}`,
        row('all paths', report.total),
        ...Object.entries(report.paths).map(([path, p]) => row(path, p)),
      ],
    };
  },

  async teardown(fixture) {
    await dropGatewayFixture(fixture);
  },
};
