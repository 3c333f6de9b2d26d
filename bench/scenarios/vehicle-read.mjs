/**
 * Scenario — `GET /v1/connections/{id}/vehicles/{vehicleId}`: one stored vehicle (all 15 metadata
 * cells as Fields, groups, timestamps) of a connection holding 20 vehicles, seeded through the
 * directory's real ingest (lib/directory-seed.mjs). Same three sides as trips-page: candidate =
 * gateway → NATS → directory child; hop = bare node:http + pg authentication → the same NATS
 * request (`directory.read.vehicles.get`) → the same directory child; baseline = bare node:http +
 * pg running VehiclesReadService.get's statements itself (the VehicleEntity rendered by PostgreSQL,
 * `VehiclesReadRepository.entityStatement`). Bodies are compared up to key order (`canonicalJson`):
 * jsonb orders keys by length then bytes, not as the schema lists them; every value must match.
 */
import { randomUUID } from 'node:crypto';
import { createStoredReadFixture, dropStoredReadFixture } from '../lib/directory-seed.mjs';
import { canonicalJson } from '../lib/read-bodies.mjs';

const bearer = (token) => ({ authorization: `Bearer ${token}` });
const path = (fixture, id = fixture.connectionId, vehicleId = fixture.vehicleIds[7]) => `/v1/connections/${id}/vehicles/${vehicleId}`;

export default {
  name: 'vehicle-read',
  title: 'GET /v1/connections/{id}/vehicles/{vehicleId}, one stored vehicle',
  baseline: { label: 'node:http + pg, directory SQL', module: new URL('../servers/stored-read-baseline.mjs?via=sql', import.meta.url) },
  candidate: { label: 'gateway → NATS → directory', module: new URL('../servers/gateway.mjs', import.meta.url) },
  hop: { label: 'node:http + pg → NATS → directory', module: new URL('../servers/stored-read-baseline.mjs?via=nats', import.meta.url) },
  support: [{ label: 'directory', module: new URL('../servers/context-service.mjs?service=directory', import.meta.url) }],

  setup: () => createStoredReadFixture({ vehicles: 20, trips: 0 }),
  request: (fixture) => ({ method: 'GET', path: path(fixture), headers: bearer(fixture.token) }),
  comparable: canonicalJson,
  checks: (fixture) => [
    { label: 'no credential', request: { method: 'GET', path: path(fixture), headers: {} }, status: 401 },
    { label: 'ungranted connection', request: { method: 'GET', path: path(fixture, randomUUID()), headers: bearer(fixture.token) }, status: 404 },
    { label: 'unknown vehicle', request: { method: 'GET', path: path(fixture, fixture.connectionId, `vcl_${'0'.repeat(26)}`), headers: bearer(fixture.token) }, status: 404 },
  ],
  teardown: (fixture) => dropStoredReadFixture(fixture),
};
