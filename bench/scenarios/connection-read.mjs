/**
 * Scenario 1 — `GET /v1/connections/{id}` with a `pt_` consumer key: authentication lookup, grant
 * check, connection read, serialization. Candidate: the real gateway (servers/gateway.mjs).
 * Baseline: the same two SQL statements and the same token check in bare node:http + pg
 * (servers/connection-read-baseline.mjs). Both answer from one isolated schema seeded through
 * CredentialsAdmin / ConnectionsAdmin: one connection, one consumer key granted `read` on it.
 * The ratio is the gateway's whole per-request overhead (Nest + Fastify, guards, pipes, filters,
 * MikroORM's query path, access log, metrics, request ids) over the same database work.
 */
import { randomUUID } from 'node:crypto';
import { createGatewayFixture, dropGatewayFixture, withGatewayOrm } from '../lib/gateway-fixture.mjs';

const server = (name) => new URL(`../servers/${name}.mjs`, import.meta.url);
const bearer = (token) => ({ authorization: `Bearer ${token}` });

export default {
  name: 'connection-read',
  title: 'GET /v1/connections/{id} with a consumer key (auth lookup + grant + read + JSON)',
  baseline: { label: 'node:http + pg, same SQL', module: server('connection-read-baseline') },
  candidate: { label: 'gateway (Nest + Fastify)', module: server('gateway') },

  async setup() {
    const fixture = await createGatewayFixture();
    try {
      await withGatewayOrm(fixture, async (orm, { credentials, connections }) => {
        const connection = await connections.create({ customerId: 'bench-customer', provider: 'samsara', environment: 'sandbox' });
        const key = await credentials.createConsumerKey('bench');
        await credentials.grantConsumer(key.id, connection.connectionId, ['read']);
        // Collection health as a sync would leave it, so the read renders timestamps and codes
        // rather than nulls (collection writes these columns; there is no admin call for them).
        await orm.em.getConnection().execute(
          `update "${fixture.schemas.gateway}"."connection"
              set last_success_at = now() - interval '5 minutes', last_error_code = 'provider_throttled',
                  extended_last_success_at = now() - interval '1 hour', extended_next_retry_at = now() + interval '10 minutes'
            where id = ?::uuid`,
          [connection.connectionId],
        );
        fixture.connectionId = connection.connectionId;
        fixture.token = key.token;
      });
    } catch (error) {
      await dropGatewayFixture(fixture).catch(() => undefined);
      throw error;
    }
    return fixture;
  },

  request: (fixture) => ({ method: 'GET', path: `/v1/connections/${fixture.connectionId}`, headers: bearer(fixture.token) }),

  checks: (fixture) => [
    { label: 'no credential', request: { method: 'GET', path: `/v1/connections/${fixture.connectionId}`, headers: {} }, status: 401 },
    // Same lookup id, different secret: the row is found and only the hash comparison rejects it.
    { label: 'wrong secret', request: { method: 'GET', path: `/v1/connections/${fixture.connectionId}`, headers: bearer(`${fixture.token.slice(0, 15)}${'x'.repeat(40)}`) }, status: 401 },
    { label: 'unknown connection', request: { method: 'GET', path: `/v1/connections/${randomUUID()}`, headers: bearer(fixture.token) }, status: 404 },
  ],

  teardown: (fixture) => dropGatewayFixture(fixture),
};
