/**
 * Scenario — `GET /v1/connections/{id}/fault-events?limit=1000`: the first 1,000 transitions of a
 * connection's feed (5,900 seeded through fault-feed's ingest, lib/fault-seed.mjs), hasMore true,
 * a durable nextCursor. Feed read throughput through the whole stack against a bare SQL keyset read.
 * candidate: gateway → NATS → fault-feed (FaultReadService.events: retention horizon, one keyset
 * query of limit + 1 transitions joined to their occurrence with the hidden set, zod reply both
 * ways, the gateway's cursor codec);
 * baseline: bare node:http + pg, one statement building the page in SQL (servers/fault-feed-baseline.mjs).
 * Bodies compared up to key order (the durable cursor is deterministic: both encode the same token).
 */
import { canonicalJson } from '../lib/read-bodies.mjs';
import { createFaultFeedFixture, dropFaultFeedFixture } from '../lib/fault-seed.mjs';

const bearer = (token) => ({ authorization: `Bearer ${token}` });
const path = (fixture) => `/v1/connections/${fixture.connectionId}/fault-events?limit=1000`;

export default {
  name: 'fault-events-page',
  title: 'GET /v1/connections/{id}/fault-events?limit=1000, 1,000 stored fault transitions',
  baseline: { label: 'node:http + pg, keyset read with JSON built in SQL', module: new URL('../servers/fault-feed-baseline.mjs', import.meta.url) },
  candidate: { label: 'gateway → NATS → fault-feed', module: new URL('../servers/gateway.mjs', import.meta.url) },
  support: [{ label: 'fault-feed', module: new URL('../servers/context-service.mjs?service=fault-feed', import.meta.url) }],

  setup: () => createFaultFeedFixture({ vehicles: 100, rounds: 30 }),
  request: (fixture) => ({ method: 'GET', path: path(fixture), headers: bearer(fixture.token) }),
  comparable: canonicalJson,
  checks: (fixture) => [
    { label: 'no credential', request: { method: 'GET', path: path(fixture), headers: {} }, status: 401 },
    { label: 'malformed cursor', request: { method: 'GET', path: `${path(fixture)}&cursor=nope`, headers: bearer(fixture.token) }, status: 400 },
  ],
  teardown: (fixture) => dropFaultFeedFixture(fixture),
};
