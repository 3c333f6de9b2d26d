/**
 * Scenario — `GET /v1/connections/{id}/vehicles/{vehicleId}/history?metric=odometer&…&limit=1000`:
 * a 1,000-point page (the history vehicle's 1,000 odometer readings in the seeded hour,
 * lib/telemetry-seed.mjs; the window holds exactly 1,000, so hasMore is false).
 * candidate: gateway (query and window checks, cursor signing) → NATS → telemetry-ingest
 * (TelemetryReadService.history: configuration, hidden set, latest rows, the snapshot, one keyset
 * range of the observations' primary key, zod on both ends); baseline: bare node:http + pg, one
 * statement building the readings in SQL (servers/telemetry-read-baseline.mjs).
 * Bodies: `nextCursor` is a signed cursor (different bytes per side) and is compared for presence
 * only; everything else up to key order.
 */
import { canonicalJson } from '../lib/read-bodies.mjs';
import { createTelemetryReadFixture, dropTelemetryReadFixture } from '../lib/telemetry-seed.mjs';

const bearer = (token) => ({ authorization: `Bearer ${token}` });
const path = (fixture, metric = 'odometer') =>
  `/v1/connections/${fixture.connectionId}/vehicles/${fixture.historyVehicleId}/history?metric=${metric}&startTime=${fixture.window.startTime}&endTime=${fixture.window.endTime}&limit=1000`;

/** The body up to key order with `nextCursor` replaced by whether it was present. */
function withoutNextCursor(text) {
  let body;
  try {
    body = JSON.parse(text);
  } catch {
    return text;
  }
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return text;
  const { nextCursor, ...rest } = body;
  return canonicalJson(JSON.stringify({ ...rest, nextCursor: typeof nextCursor === 'string' && nextCursor.length > 0 }));
}

export default {
  name: 'history-page',
  title: 'GET /v1/connections/{id}/vehicles/{vehicleId}/history, a 1,000-point page',
  baseline: { label: 'node:http + pg, JSON built in SQL', module: new URL('../servers/telemetry-read-baseline.mjs', import.meta.url) },
  candidate: { label: 'gateway → NATS → telemetry-ingest', module: new URL('../servers/gateway.mjs', import.meta.url) },
  support: [{ label: 'telemetry-ingest', module: new URL('../servers/context-service.mjs?service=telemetry-ingest', import.meta.url) }],

  setup: () => createTelemetryReadFixture({ vehicles: 100, historyPoints: 1000 }),
  request: (fixture) => ({ method: 'GET', path: path(fixture), headers: bearer(fixture.token) }),
  comparable: withoutNextCursor,
  checks: (fixture) => [
    { label: 'no credential', request: { method: 'GET', path: path(fixture), headers: {} }, status: 401 },
    { label: 'unknown metric', request: { method: 'GET', path: path(fixture, 'rpm'), headers: bearer(fixture.token) }, status: 400 },
  ],
  teardown: (fixture) => dropTelemetryReadFixture(fixture),
};
