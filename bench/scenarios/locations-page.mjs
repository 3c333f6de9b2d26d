/**
 * Scenario — `GET /v1/connections/{id}/locations?limit=100`: one page of 100 latest locations (the
 * connection's 100 vehicles, lib/telemetry-seed.mjs), the last page (nextCursor null).
 * candidate: gateway → NATS → telemetry-ingest (TelemetryReadService.locations: configuration,
 * hidden set, one keyset query of limit + 1 vehicles with their location row, status per entry);
 * baseline: bare node:http + pg, one statement building the page in SQL
 * (servers/telemetry-read-baseline.mjs). Bodies compared up to key order.
 */
import { canonicalJson } from '../lib/read-bodies.mjs';
import { createTelemetryReadFixture, dropTelemetryReadFixture } from '../lib/telemetry-seed.mjs';

const bearer = (token) => ({ authorization: `Bearer ${token}` });
const path = (fixture) => `/v1/connections/${fixture.connectionId}/locations?limit=100`;

export default {
  name: 'locations-page',
  title: 'GET /v1/connections/{id}/locations?limit=100, 100 latest stored locations',
  baseline: { label: 'node:http + pg, JSON built in SQL', module: new URL('../servers/telemetry-read-baseline.mjs', import.meta.url) },
  candidate: { label: 'gateway → NATS → telemetry-ingest', module: new URL('../servers/gateway.mjs', import.meta.url) },
  support: [{ label: 'telemetry-ingest', module: new URL('../servers/context-service.mjs?service=telemetry-ingest', import.meta.url) }],

  setup: () => createTelemetryReadFixture({ vehicles: 100, historyPoints: 1000 }),
  request: (fixture) => ({ method: 'GET', path: path(fixture), headers: bearer(fixture.token) }),
  comparable: canonicalJson,
  checks: (fixture) => [{ label: 'no credential', request: { method: 'GET', path: path(fixture), headers: {} }, status: 401 }],
  teardown: (fixture) => dropTelemetryReadFixture(fixture),
};
