/**
 * Scenario — `GET /v1/connections/{id}/vehicles/{vehicleId}/utilization` over 30 days of one vehicle
 * observed every minute (odometer and engine hours: 86,400 observations in reach of the window;
 * lib/usage-seed.mjs). candidate: gateway → NATS → telemetry-ingest, summing the usage rollups
 * (2,880 fifteen-minute slots per metric) plus the raw intervals at the window's two unaligned
 * edges; baseline: bare node:http + pg, one hand-written SQL window query (`lag()`) over the raw
 * observations computing the same figures (servers/usage-baseline.mjs). Bodies are compared on those
 * figures (usageFigures: distance and engine runtime status, value and coverage, engine not running,
 * the percentage).
 */
import { createUsageFixture, dropUsageFixture, usageFigures } from '../lib/usage-seed.mjs';

const DAY = 86_400_000;
// Yesterday's midnight less 30 days, plus an unaligned offset: a 30-day window inside the seeded 31 days.
const start = Math.floor(Date.now() / DAY) * DAY - 31 * DAY + 3_600_000 + 17_000;
const window = { startTime: new Date(start).toISOString(), endTime: new Date(start + 30 * DAY).toISOString() };
const bearer = (token) => ({ authorization: `Bearer ${token}` });
const path = (fixture) => `/v1/connections/${fixture.connectionId}/vehicles/${fixture.vehicleIds[0]}/utilization?startTime=${fixture.window.startTime}&endTime=${fixture.window.endTime}`;

export default {
  name: 'usage-utilization',
  title: 'GET /v1/connections/{id}/vehicles/{vehicleId}/utilization, 30 days at one observation per minute',
  baseline: { label: 'node:http + pg, SQL window query over raw observations', module: new URL('../servers/usage-baseline.mjs', import.meta.url) },
  candidate: { label: 'gateway → NATS → telemetry-ingest (rollups)', module: new URL('../servers/gateway.mjs', import.meta.url) },
  support: [{ label: 'telemetry-ingest', module: new URL('../servers/context-service.mjs?service=telemetry-ingest', import.meta.url) }],

  setup: () => createUsageFixture({ vehicles: 1, minutes: 31 * 1440, window }),
  request: (fixture) => ({ method: 'GET', path: path(fixture), headers: bearer(fixture.token) }),
  comparable: usageFigures,
  checks: (fixture) => [{ label: 'no credential', request: { method: 'GET', path: path(fixture), headers: {} }, status: 401 }],
  teardown: (fixture) => dropUsageFixture(fixture),
};
