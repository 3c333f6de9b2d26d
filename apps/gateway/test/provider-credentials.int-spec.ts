/**
 * `gateway.connection.provider-access` over the real NATS server: a collector's bus connection (a
 * second client in the gateway's namespace) asks for a connection's credentials with a fresh
 * X25519 key and opens the sealed reply; an eavesdropper subscribed to every subject learns none of
 * them; unknown connections, connections without credentials and credentials that do not fit the
 * provider are typed errors; a seal moved to another row does not open, nor does a reply with
 * another request's key. Every secret used here is random, so "the logs never contain it" and "the
 * bus never carries it" are real checks.
 *
 * Mutations tried: the gateway "sealing" in clear (ciphertext = the credentials' JSON in base64url,
 * i.e. `Buffer.from(JSON.stringify(credentials)).toString('base64url')`) fails "an eavesdropper on
 * the bus learns no credential"; replying `credentials` beside the seal fails it too. The X25519
 * shared secret in `aesKey` (libs/messaging/src/provider-access.ts) replaced by 32 zero bytes (the
 * key then follows from the two public keys on the wire) fails "a third party holding both public
 * keys …" — and only it: the eavesdropper test sees ciphertext either way.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { generateKeyPairSync, randomBytes, randomUUID } from 'node:crypto';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { createBus, openSealedCredentials, providerAccessRequest, type MessageBus, type ProviderAccessV1, RpcError, RPCS, SealedCredentialsError } from '@switchyard/messaging';
import { startTestGateway, type TestGateway } from './support.js';

let gw: TestGateway;
let collector: MessageBus;
/** A bus client that subscribes to everything and keeps every payload (the eavesdropper). */
let tap: NatsConnection;
const tapped: { subject: string; reply?: string; data: Uint8Array }[] = [];
const secret = (label: string) => `${label}-${randomBytes(18).toString('base64url')}`;
const samsaraToken = secret('samsara');
const motiveKey = secret('motive');
const geotabPassword = secret('geotab');

/** What a collector does: a fresh key pair, the request, and opening the sealed reply. */
async function access(connectionId: string): Promise<ProviderAccessV1> {
  const sealed = providerAccessRequest(connectionId);
  return sealed.open(await collector.request(RPCS.gateway.providerAccess, sealed.request, { timeoutMs: 5_000 }));
}

async function rpcError(connectionId: string): Promise<RpcError> {
  const error = await collector.request(RPCS.gateway.providerAccess, providerAccessRequest(connectionId).request, { timeoutMs: 5_000 }).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(RpcError);
  return error as RpcError;
}

beforeAll(async () => {
  gw = await startTestGateway();
  collector = await createBus({ kind: 'jetstream', servers: gw.natsUrl, name: 'collector-test', namespace: gw.namespace });
  tap = await connect({ servers: gw.natsUrl, name: 'eavesdropper' });
  tap.subscribe('>', { callback: (_e, m) => void tapped.push({ subject: m.subject, reply: m.reply, data: m.data }) });
  await tap.flush();
});

afterAll(async () => {
  await tap?.close();
  await collector?.close();
  await gw?.close();
});

describe('gateway.connection.provider-access', () => {
  it('returns each provider’s credentials sealed to the requesting collector, with provider, environment, status and revision', async () => {
    const samsara = await gw.connections.create({ customerId: 'c1', provider: 'samsara', environment: 'sandbox', providerCredentials: { apiToken: samsaraToken } });
    const motive = await gw.connections.create({ customerId: 'c1', provider: 'motive', environment: 'production', providerCredentials: { apiKey: motiveKey } });
    const geotab = await gw.connections.create({
      customerId: 'c1',
      provider: 'geotab',
      environment: 'sandbox',
      providerCredentials: { database: 'fleet_db', userName: 'svc@example.com', password: geotabPassword },
    });
    await gw.connections.configure(samsara.connectionId, { status: 'paused' });

    expect(await access(samsara.connectionId)).toEqual({
      connectionId: samsara.connectionId,
      provider: 'samsara',
      environment: 'sandbox',
      status: 'paused',
      revision: 2,
      refreshable: false,
      credentials: { apiToken: samsaraToken },
    });
    expect(await access(motive.connectionId)).toEqual({
      connectionId: motive.connectionId,
      provider: 'motive',
      environment: 'production',
      status: 'active',
      revision: 1,
      refreshable: false,
      credentials: { apiKey: motiveKey },
    });
    expect(await access(geotab.connectionId)).toMatchObject({
      provider: 'geotab',
      credentials: { database: 'fleet_db', userName: 'svc@example.com', password: geotabPassword },
    });
  });

  it('an eavesdropper on the bus learns no credential: the requests and replies it saw carry none, in clear or in base64', async () => {
    const secrets = [secret('tapped-samsara'), secret('tapped-motive'), secret('tapped-geotab')];
    const created = [
      await gw.connections.create({ customerId: 'c7', provider: 'samsara', environment: 'sandbox', providerCredentials: { apiToken: secrets[0] } }),
      await gw.connections.create({ customerId: 'c7', provider: 'motive', environment: 'sandbox', providerCredentials: { apiKey: secrets[1] } }),
      await gw.connections.create({ customerId: 'c7', provider: 'geotab', environment: 'sandbox', providerCredentials: { database: 'db', userName: 'u', password: secrets[2] } }),
    ];
    for (const c of created) await collector.request(RPCS.gateway.providerAccess, providerAccessRequest(c.connectionId).request, { timeoutMs: 5_000 });
    await tap.flush();
    const subject = `${gw.namespace}.${RPCS.gateway.providerAccess.subject}`;
    const requests = tapped.filter((m) => m.subject === subject);
    expect(requests.length).toBeGreaterThanOrEqual(3);
    const replySubjects = new Set(requests.map((m) => m.reply));
    const replies = tapped.filter((m) => replySubjects.has(m.subject));
    // The tap saw the replies too (not only the requests); each one is sealed.
    expect(replies.length).toBeGreaterThanOrEqual(3);
    for (const reply of replies) expect(JSON.stringify(JSON.parse(Buffer.from(reply.data).toString('utf8')))).toContain('"sealedCredentials"');
    for (const m of [...requests, ...replies]) {
      const text = Buffer.from(m.data).toString('utf8');
      // Every token that could be an encoding is decoded and searched too.
      const decoded = (text.match(/[A-Za-z0-9+/_=-]{16,}/g) ?? []).flatMap((t) => [Buffer.from(t, 'base64url').toString('latin1'), Buffer.from(t, 'hex').toString('latin1')]);
      for (const value of [...secrets, samsaraToken, motiveKey, geotabPassword]) {
        expect(text).not.toContain(value);
        for (const d of decoded) expect(d).not.toContain(value);
      }
    }
  });

  it('a reply does not open with another request’s key, nor for another connection', async () => {
    const c = await gw.connections.create({ customerId: 'c5', provider: 'samsara', environment: 'sandbox', providerCredentials: { apiToken: secret('other') } });
    const mine = providerAccessRequest(c.connectionId);
    const reply = await collector.request(RPCS.gateway.providerAccess, mine.request, { timeoutMs: 5_000 });
    expect(() => providerAccessRequest(c.connectionId).open(reply)).toThrow(SealedCredentialsError);
    expect(() => mine.open({ ...reply, provider: 'motive' })).toThrow(SealedCredentialsError);
    expect(() => mine.open({ ...reply, connectionId: randomUUID() })).toThrow(SealedCredentialsError);
    expect(mine.open(reply).provider).toBe('samsara');
  });

  it('a third party holding both public keys (both on the wire) and a private key of its own cannot open a reply', async () => {
    // mutation: `aesKey`'s X25519 shared secret replaced by 32 zero bytes (`const shared = Buffer.alloc(32)`):
    // the AES key then derives from the two public keys alone, the third party opens the reply → this test fails.
    const token = secret('third-party');
    const c = await gw.connections.create({ customerId: 'c8', provider: 'samsara', environment: 'sandbox', providerCredentials: { apiToken: token } });
    const mine = providerAccessRequest(c.connectionId);
    const reply = await collector.request(RPCS.gateway.providerAccess, mine.request, { timeoutMs: 5_000 });
    await tap.flush();
    const wire = tapped.map((m) => Buffer.from(m.data).toString('utf8'));
    const { recipientKey } = mine.request;
    const { ephemeralKey } = reply.sealedCredentials;
    expect(wire.some((text) => text.includes(recipientKey))).toBe(true);
    expect(wire.some((text) => text.includes(ephemeralKey))).toBe(true);
    for (let attempt = 0; attempt < 3; attempt++) {
      const own = generateKeyPairSync('x25519').privateKey;
      expect(() => openSealedCredentials(reply.sealedCredentials, own, recipientKey, c.connectionId, 'samsara')).toThrow(SealedCredentialsError);
    }
    expect(mine.open(reply).credentials).toEqual({ apiToken: token });
  });

  it('answers not_found for an unknown connection and invalid_request for a malformed id', async () => {
    expect((await rpcError(randomUUID())).code).toBe('not_found');
    const malformed = await collector.request(RPCS.gateway.providerAccess, { ...providerAccessRequest(randomUUID()).request, connectionId: 'not-a-uuid' }).catch((e: unknown) => e);
    expect(malformed).toMatchObject({ code: 'invalid_request' });
    // No key, no credentials: an old-style request (connection id only), sent raw past the client's own check, is refused.
    const c = await gw.connections.create({ customerId: 'c6', provider: 'samsara', environment: 'sandbox', providerCredentials: { apiToken: secret('keyless') } });
    const raw = await tap.request(`${gw.namespace}.${RPCS.gateway.providerAccess.subject}`, JSON.stringify({ connectionId: c.connectionId }), { timeout: 5_000 });
    expect(raw.string()).toContain('invalid_request');
    expect(raw.string()).not.toContain('sealedCredentials');
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
