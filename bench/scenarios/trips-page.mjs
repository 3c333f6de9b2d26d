/**
 * Scenario — `GET /v1/connections/{id}/trips?limit=100`, the first page of a connection holding
 * BENCH_TRIPS (3,000) trips over 20 vehicles, seeded through the directory's real ingest
 * (lib/directory-seed.mjs). Three sides, alternating in every round:
 * - candidate: the real gateway (auth guard, query parsing, cursor signing, Nest + Fastify, access
 *   log) → NATS request/reply → the real directory child (TripsReadService over MikroORM);
 * - hop: bare node:http + pg authentication → the same NATS request to the same directory child
 *   (servers/stored-read-baseline.mjs?via=nats): no gateway framework;
 * - baseline: bare node:http + pg running the directory's statements itself (…?via=sql).
 * So candidate − hop ≈ the gateway's framework cost and hop − baseline ≈ the NATS hop plus the
 * directory service's own path; the directory child's CPU per request is printed per round.
 * Bodies: `next` is a signed cursor over a fresh snapshot (pg_current_snapshot changes whenever any
 * transaction on the server commits), so it differs between requests and between sides; everything
 * else (status, retrieval, results, coverage, publishedAt, errorCode) must be identical, and `next`
 * must be present in all.
 */
import { randomUUID } from 'node:crypto';
import { createStoredReadFixture, dropStoredReadFixture } from '../lib/directory-seed.mjs';
import { withoutNext } from '../lib/read-bodies.mjs';

const server = (name) => new URL(`../servers/${name}.mjs`, import.meta.url);
const bearer = (token) => ({ authorization: `Bearer ${token}` });
const trips = Number(process.env.BENCH_TRIPS ?? 3000);
const path = (fixture, id = fixture.connectionId) => `/v1/connections/${id}/trips?limit=100`;

export default {
  name: 'trips-page',
  title: `GET /v1/connections/{id}/trips?limit=100, first page of ${trips} stored trips`,
  baseline: { label: 'node:http + pg, directory SQL', module: new URL('../servers/stored-read-baseline.mjs?via=sql', import.meta.url) },
  candidate: { label: 'gateway → NATS → directory', module: server('gateway') },
  hop: { label: 'node:http + pg → NATS → directory', module: new URL('../servers/stored-read-baseline.mjs?via=nats', import.meta.url) },
  support: [{ label: 'directory', module: new URL('../servers/context-service.mjs?service=directory', import.meta.url) }],

  setup: () => createStoredReadFixture({ vehicles: 20, trips }),
  request: (fixture) => ({ method: 'GET', path: path(fixture), headers: bearer(fixture.token) }),
  comparable: withoutNext,
  checks: (fixture) => [
    { label: 'no credential', request: { method: 'GET', path: path(fixture), headers: {} }, status: 401 },
    { label: 'wrong secret', request: { method: 'GET', path: path(fixture), headers: bearer(`${fixture.token.slice(0, 15)}${'x'.repeat(40)}`) }, status: 401 },
    { label: 'ungranted connection', request: { method: 'GET', path: path(fixture, randomUUID()), headers: bearer(fixture.token) }, status: 404 },
  ],
  teardown: (fixture) => dropStoredReadFixture(fixture),
};
