/**
 * Scenario — `GET /v1/connections/{id}/vehicles/{vehicleId}/telemetry`: the latest stored telemetry
 * of one vehicle of a connection holding 100 vehicles with a location and an odometer each, seeded
 * through telemetry-ingest's real ingest (lib/telemetry-seed.mjs).
 * - candidate: the real gateway (auth guard, Nest + Fastify, access log, ETag) → NATS → the real
 *   telemetry-ingest child (TelemetryReadService: configuration, hidden set, latest readings, fault
 *   observation over MikroORM, zod on both ends);
 * - baseline: bare node:http + pg doing the same primary-key lookups in one statement that builds
 *   the JSON in SQL (servers/telemetry-read-baseline.mjs).
 * Bodies are compared up to key order (jsonb orders keys by length, the service by schema).
 */
import { randomUUID } from 'node:crypto';
import { canonicalJson } from '../lib/read-bodies.mjs';
import { createTelemetryReadFixture, dropTelemetryReadFixture } from '../lib/telemetry-seed.mjs';

const bearer = (token) => ({ authorization: `Bearer ${token}` });
const path = (fixture, id = fixture.connectionId, vehicleId = fixture.vehicleIds[7]) => `/v1/connections/${id}/vehicles/${vehicleId}/telemetry`;

export default {
  name: 'telemetry-read',
  title: 'GET /v1/connections/{id}/vehicles/{vehicleId}/telemetry, latest stored telemetry of one vehicle',
  baseline: { label: 'node:http + pg, JSON built in SQL', module: new URL('../servers/telemetry-read-baseline.mjs', import.meta.url) },
  candidate: { label: 'gateway → NATS → telemetry-ingest', module: new URL('../servers/gateway.mjs', import.meta.url) },
  support: [{ label: 'telemetry-ingest', module: new URL('../servers/context-service.mjs?service=telemetry-ingest', import.meta.url) }],

  setup: () => createTelemetryReadFixture({ vehicles: 100, historyPoints: 1000 }),
  request: (fixture) => ({ method: 'GET', path: path(fixture), headers: bearer(fixture.token) }),
  comparable: canonicalJson,
  checks: (fixture) => [
    { label: 'no credential', request: { method: 'GET', path: path(fixture), headers: {} }, status: 401 },
    { label: 'ungranted connection', request: { method: 'GET', path: path(fixture, randomUUID()), headers: bearer(fixture.token) }, status: 404 },
    { label: 'unknown vehicle', request: { method: 'GET', path: path(fixture, fixture.connectionId, `vcl_${'0'.repeat(26)}`), headers: bearer(fixture.token) }, status: 404 },
  ],
  teardown: (fixture) => dropTelemetryReadFixture(fixture),
};
