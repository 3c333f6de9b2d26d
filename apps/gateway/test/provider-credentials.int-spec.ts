/**
 * `gateway.connection.provider-access` over the real NATS server: a collector's bus connection (a
 * second client in the gateway's namespace) asks for a connection's credentials and gets them
 * opened from the seal; unknown connections, connections without credentials and credentials that
 * do not fit the provider are typed errors; a seal moved to another row does not open. Every
 * secret used here is random, so "the logs never contain it" is a real check.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomBytes, randomUUID } from 'node:crypto';
import { createBus, type MessageBus, RpcError, RPCS } from '@switchyard/messaging';
import { startTestGateway, type TestGateway } from './support.js';

let gw: TestGateway;
let collector: MessageBus;
const secret = (label: string) => `${label}-${randomBytes(18).toString('base64url')}`;
const samsaraToken = secret('samsara');
const motiveKey = secret('motive');
const geotabPassword = secret('geotab');

async function rpcError(connectionId: string): Promise<RpcError> {
  const error = await collector.request(RPCS.gateway.providerAccess, { connectionId }, { timeoutMs: 5_000 }).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(RpcError);
  return error as RpcError;
}

beforeAll(async () => {
  gw = await startTestGateway();
  collector = await createBus({ kind: 'jetstream', servers: gw.natsUrl, name: 'collector-test', namespace: gw.namespace });
});

afterAll(async () => {
  await collector?.close();
  await gw?.close();
});

describe('gateway.connection.provider-access', () => {
  it('returns each provider’s credentials opened from the seal, with provider, environment, status and revision', async () => {
    const samsara = await gw.connections.create({ customerId: 'c1', provider: 'samsara', environment: 'sandbox', providerCredentials: { apiToken: samsaraToken } });
    const motive = await gw.connections.create({ customerId: 'c1', provider: 'motive', environment: 'production', providerCredentials: { apiKey: motiveKey } });
    const geotab = await gw.connections.create({
      customerId: 'c1',
      provider: 'geotab',
      environment: 'sandbox',
      providerCredentials: { database: 'fleet_db', userName: 'svc@example.com', password: geotabPassword },
    });
    await gw.connections.configure(samsara.connectionId, { status: 'paused' });

    expect(await collector.request(RPCS.gateway.providerAccess, { connectionId: samsara.connectionId })).toEqual({
      connectionId: samsara.connectionId,
      provider: 'samsara',
      environment: 'sandbox',
      status: 'paused',
      revision: 2,
      credentials: { apiToken: samsaraToken },
    });
    expect(await collector.request(RPCS.gateway.providerAccess, { connectionId: motive.connectionId })).toEqual({
      connectionId: motive.connectionId,
      provider: 'motive',
      environment: 'production',
      status: 'active',
      revision: 1,
      credentials: { apiKey: motiveKey },
    });
    expect(await collector.request(RPCS.gateway.providerAccess, { connectionId: geotab.connectionId })).toMatchObject({
      provider: 'geotab',
      credentials: { database: 'fleet_db', userName: 'svc@example.com', password: geotabPassword },
    });
  });

  it('answers not_found for an unknown connection and invalid_request for a malformed id', async () => {
    expect((await rpcError(randomUUID())).code).toBe('not_found');
    const malformed = await collector.request(RPCS.gateway.providerAccess, { connectionId: 'not-a-uuid' }).catch((e: unknown) => e);
    expect(malformed).toMatchObject({ code: 'invalid_request' });
  });

  it('answers provider_config_invalid for a connection without credentials', async () => {
    const bare = await gw.connections.create({ customerId: 'c2', provider: 'samsara', environment: 'sandbox' });
    const error = await rpcError(bare.connectionId);
    expect(error.code).toBe('provider_config_invalid');
    expect(error.detail).toMatch(/no provider credentials/);
  });

  it('answers provider_config_invalid, naming the key but not the value, when stored credentials do not fit the provider', async () => {
    const wrongShape = secret('wrong');
    const mismatched = await gw.connections.create({ customerId: 'c3', provider: 'samsara', environment: 'sandbox', providerCredentials: { apiKey: wrongShape } });
    const error = await rpcError(mismatched.connectionId);
    expect(error.code).toBe('provider_config_invalid');
    expect(error.detail).toContain('apiToken');
    expect(error.message).not.toContain(wrongShape);
  });

  it('does not open a seal copied onto another connection (the connection id is its associated data)', async () => {
    const donor = await gw.connections.create({ customerId: 'c4', provider: 'samsara', environment: 'sandbox', providerCredentials: { apiToken: secret('donor') } });
    const target = await gw.connections.create({ customerId: 'c4', provider: 'samsara', environment: 'sandbox' });
    const em = gw.service.runtime.orm.em.fork();
    const table = `"${gw.schemas.gateway}"."connection"`;
    await em.execute(`update ${table} set provider_credentials = (select provider_credentials from ${table} where id = ?::uuid) where id = ?::uuid`, [
      donor.connectionId,
      target.connectionId,
    ]);
    expect((await rpcError(target.connectionId)).code).toBe('internal_error');
    expect(gw.logText()).toContain('provider credentials could not be opened');
  });

  it('never writes a provider secret to the gateway logs', () => {
    const logs = gw.logText();
    expect(logs.length).toBeGreaterThan(0);
    for (const value of [samsaraToken, motiveKey, geotabPassword]) expect(logs).not.toContain(value);
  });
});
