/**
 * Scenario — `GET /v1/connections/{id}/vehicles/{vehicleId}/profile`: the VehicleProfile of one
 * vehicle of a connection holding 100 enriched vehicles (identity decoded from real vPIC data,
 * images/specifications/build from the AutoSpec simulator), seeded through the enrichment
 * context's real pipeline (lib/enrichment-seed.mjs, which also prints the identity decode
 * throughput in VINs/s).
 * - candidate: the real gateway (auth guard, Nest + Fastify, access log, ETag) → NATS → the real
 *   enrichment child (ProfileReadService: vehicle, hidden set, four product rows over MikroORM,
 *   zod on both ends);
 * - baseline: bare node:http + pg doing the same primary-key reads in one statement that builds the
 *   JSON in SQL (servers/enrichment-read-baseline.mjs).
 * Bodies are compared up to key order (jsonb orders keys by length, the service by schema).
 */
import { randomUUID } from 'node:crypto';
import { canonicalJson } from '../lib/read-bodies.mjs';
import { createEnrichmentFixture, dropEnrichmentFixture } from '../lib/enrichment-seed.mjs';

const bearer = (token) => ({ authorization: `Bearer ${token}` });
const path = (fixture, id = fixture.connectionId, vehicleId = fixture.vehicleIds[7]) => `/v1/connections/${id}/vehicles/${vehicleId}/profile`;

export default {
  name: 'vehicle-profile',
  title: 'GET /v1/connections/{id}/vehicles/{vehicleId}/profile, the four enrichment products of one vehicle',
  baseline: { label: 'node:http + pg, JSON built in SQL', module: new URL('../servers/enrichment-read-baseline.mjs', import.meta.url) },
  candidate: { label: 'gateway → NATS → enrichment', module: new URL('../servers/gateway.mjs', import.meta.url) },
  support: [{ label: 'enrichment', module: new URL('../servers/context-service.mjs?service=enrichment', import.meta.url) }],

  setup: () => createEnrichmentFixture({ vehicles: 100 }),
  request: (fixture) => ({ method: 'GET', path: path(fixture), headers: bearer(fixture.token) }),
  comparable: canonicalJson,
  checks: (fixture) => [
    { label: 'no credential', request: { method: 'GET', path: path(fixture), headers: {} }, status: 401 },
    { label: 'ungranted connection', request: { method: 'GET', path: path(fixture, randomUUID()), headers: bearer(fixture.token) }, status: 404 },
    { label: 'unknown vehicle', request: { method: 'GET', path: path(fixture, fixture.connectionId, `vcl_${'0'.repeat(26)}`), headers: bearer(fixture.token) }, status: 404 },
  ],
  teardown: (fixture) => dropEnrichmentFixture(fixture),
};
