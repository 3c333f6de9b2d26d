/**
 * Scenario — `GET /v1/connections/{id}/utilization?limit=100` over one day of a 1,000-vehicle fleet,
 * every vehicle observed every minute (odometer and engine hours: 3.1 million observations seeded,
 * lib/usage-seed.mjs); one page of 100 vehicles per request (the page maximum; the fleet is ten
 * pages). candidate: gateway → NATS → telemetry-ingest (visible vehicles, then the page's rollups in
 * one query per table plus the raw intervals at the window's edges); baseline: bare node:http + pg,
 * the hand-written SQL window query over the raw observations of the page's 100 vehicles
 * (servers/usage-baseline.mjs). Bodies are compared on the figures (usageFigures) and whether a next
 * page follows.
 */
import { createUsageFixture, dropUsageFixture, usageFigures } from '../lib/usage-seed.mjs';

const DAY = 86_400_000;
const start = Math.floor(Date.now() / DAY) * DAY - DAY + 3_600_000 + 17_000;
const window = { startTime: new Date(start).toISOString(), endTime: new Date(start + DAY).toISOString() };
const bearer = (token) => ({ authorization: `Bearer ${token}` });
const path = (fixture) => `/v1/connections/${fixture.connectionId}/utilization?startTime=${fixture.window.startTime}&endTime=${fixture.window.endTime}&limit=100`;

export default {
  name: 'fleet-utilization',
  title: 'GET /v1/connections/{id}/utilization, one day of 1,000 vehicles, 100 per page',
  baseline: { label: 'node:http + pg, SQL window query over raw observations', module: new URL('../servers/usage-baseline.mjs', import.meta.url) },
  candidate: { label: 'gateway → NATS → telemetry-ingest (rollups)', module: new URL('../servers/gateway.mjs', import.meta.url) },
  support: [{ label: 'telemetry-ingest', module: new URL('../servers/context-service.mjs?service=telemetry-ingest', import.meta.url) }],

  setup: () => createUsageFixture({ vehicles: Number(process.env.BENCH_FLEET_VEHICLES ?? 1000), minutes: 1440 + 120, window }),
  request: (fixture) => ({ method: 'GET', path: path(fixture), headers: bearer(fixture.token) }),
  comparable: usageFigures,
  checks: (fixture) => [{ label: 'no credential', request: { method: 'GET', path: path(fixture), headers: {} }, status: 401 }],
  teardown: (fixture) => dropUsageFixture(fixture),
};
