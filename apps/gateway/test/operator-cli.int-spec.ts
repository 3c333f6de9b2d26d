/**
 * The operator CLI against an isolated gateway schema (DB_SCHEMA + DATABASE_URL), sharing it with
 * a running test gateway: what the CLI issues authenticates over HTTP, and what it revokes stops
 * doing so on the next request. Bad arguments are clear errors that write nothing. Beside `npm start`
 * (no DATABASE_URL) it uses the database the launcher recorded in its data directory.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { writeLocalStack, type LocalStack } from '@switchyard/service-kit';
import { createTestDatabase, expectEventually, type TestDatabase } from '@switchyard/testing';
import { CredentialChangeListener } from '../src/auth/credential-change-listener.js';
import { operatorMain, runOperator, SecretBox } from '../src/index.js';
import { bearer, startTestGateway, type TestGateway } from './support.js';

type Json = Record<string, unknown>;

let gw: TestGateway;
let env: NodeJS.ProcessEnv;
const op = async (...argv: string[]) => (await runOperator(argv, env)) as Json;

/** Rows of a gateway table, for checking that a failed command wrote nothing. */
async function count(table: string, where = 'true'): Promise<number> {
  const rows = await gw.service.runtime.orm.em.getConnection().execute<{ n: string }[]>(`select count(*) as n from "${gw.schemas.gateway}"."${table}" where ${where}`);
  return Number(rows[0]!.n);
}

beforeAll(async () => {
  gw = await startTestGateway();
  // Only what the CLI needs: no PATH, no inherited DB_SCHEMA, so nothing can reach another schema.
  env = {
    DATABASE_URL: gw.databaseUrl,
    DB_SCHEMA: gw.schemas.gateway,
    SWITCHYARD_MASTER_KEY: SecretBox.generateKey(),
    CURSOR_SECRET: randomBytes(32).toString('base64url'),
  };
});

afterAll(async () => {
  await gw?.close();
});

describe('operator CLI', () => {
  let connectionId: string;
  let keyId: string;
  let keyToken: string;
  let appId: string;

  it('connection:create, key:create and grant:consumer issue a key that reads the connection over HTTP', async () => {
    const connection = await op('connection:create', '--customer', 'cust-cli', '--provider', 'motive', '--env', 'sandbox', '--credentials', '{"apiToken":"motive-secret-value"}');
    connectionId = connection.connectionId as string;
    expect(connection).toMatchObject({ provider: 'motive', environment: 'sandbox', status: 'active', revision: 1, unifiedCollection: false });
    expect(JSON.stringify(connection)).not.toContain('motive-secret-value');

    const key = await op('key:create', '--name', 'cli key');
    [keyId, keyToken] = [key.id as string, key.token as string];
    expect(keyToken).toMatch(/^pt_/);
    expect(key.displayPrefix).toBe(keyToken.slice(0, (key.displayPrefix as string).length));

    const url = `/v1/connections/${connectionId}`;
    expect((await gw.call('GET', url, { headers: bearer(keyToken) })).status).toBe(404);
    expect(await op('grant:consumer', '--key', keyId, '--connection', connectionId, '--permissions', 'read,manage')).toMatchObject({ ok: true });
    const res = await gw.call('GET', url, { headers: bearer(keyToken) });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: connectionId, customer_id: 'cust-cli', provider: 'motive' });
    // The provider credentials are sealed with the master key: only the ciphertext is stored.
    expect(await count('connection', `provider_credentials::text like '%motive-secret-value%'`)).toBe(0);
  });

  it('app:create, token:issue and grant:app issue sync credentials', async () => {
    const app = await op('app:create', '--name', 'cli app', '--env', 'sandbox');
    appId = app.id as string;
    expect(app.token).toMatch(/^sk_sandbox_/);
    const token = await op('token:issue', '--app', appId, '--connection', connectionId);
    expect(token.token).toMatch(/^ct_/);
    expect(await op('grant:app', '--app', appId, '--connection', connectionId, '--operations', 'sync.create,sync.read', '--history')).toEqual({
      ok: true,
      operations: ['sync.create', 'sync.read'],
      history: true,
    });
    const grants = await gw.service.runtime.orm.em
      .getConnection()
      .execute<{ operations: string[]; history: boolean }[]>(`select operations, history from "${gw.schemas.gateway}".application_grant where application_id = ?`, [appId]);
    expect(grants).toEqual([{ operations: ['sync.create', 'sync.read'], history: true }]);
  });

  it('token:issue and revoke connection-token announce the application\'s active tokens through the outbox, at a new token version', async () => {
    const latestSnapshot = async () => {
      const rows = await gw.service.runtime.orm.em
        .getConnection()
        .execute<{ payload: { credentialVersion: number; tokenVersion: number; connectionTokens: unknown[] } }[]>(
          `select payload from "${gw.schemas.gateway}".outbox where msg_id like ? order by id desc limit 1`,
          [`application-grant:${appId}:%`],
        );
      return rows[0]!.payload;
    };
    const before = await latestSnapshot();
    const token = await op('token:issue', '--app', appId, '--connection', connectionId);
    const issued = await latestSnapshot();
    expect(issued).toMatchObject({ credentialVersion: before.credentialVersion, tokenVersion: before.tokenVersion + 1 });
    expect(issued.connectionTokens).toContainEqual({ id: token.id, connectionId });
    expect(await op('revoke', 'connection-token', token.displayPrefix as string)).toEqual({ ok: true, alreadyRevoked: false });
    const revoked = await latestSnapshot();
    expect(revoked).toMatchObject({ credentialVersion: before.credentialVersion, tokenVersion: before.tokenVersion + 2 });
    expect(revoked.connectionTokens).toEqual(issued.connectionTokens.filter((t) => (t as { id: string }).id !== token.id));
    expect(revoked.connectionTokens).toHaveLength(issued.connectionTokens.length - 1);
  });

  it('connection:configure applies every flag in one revision and announces it through the outbox', async () => {
    const before = await count('outbox');
    const config = await op(
      'connection:configure',
      '--connection',
      connectionId,
      '--status',
      'paused',
      '--unified-collection',
      'true',
      '--purposes',
      'vehicles,trips',
      '--approved-vehicles',
      'v1,v2,v3',
      '--include',
      'v1',
      '--exclude',
      'v3',
      '--include-statuses',
      'active',
      '--opt-ins',
      'groupInventory,vehicleMetadata',
      '--approved-groups',
      'g1,g2',
      '--signals',
      'odometer,location',
    );
    expect(config).toMatchObject({
      connectionId,
      status: 'paused',
      unifiedCollection: true,
      purposes: { vehicles: true, groupMemberships: false, trips: true },
      approvedVehicleIds: ['v1', 'v2', 'v3'],
      includeVehicleIds: ['v1'],
      excludeVehicleIds: ['v3'],
      includeStatuses: ['active'],
      optIns: { groupInventory: true, vehicleMetadata: true, extendedTelemetry: false },
      approvedGroupIds: ['g1', 'g2'],
      selectedSignals: ['odometer', 'location'],
      revision: 2,
    });
    expect(await op('connection:show', '--connection', connectionId)).toEqual(config);
    // The configuration snapshot, and the status change it makes (active → paused: events.connection.status.*, the webhook event connection.paused).
    expect(await count('outbox')).toBe(before + 2);
    expect(await count('outbox', `subject = 'events.connection.status.${connectionId}' and payload->>'status' = 'paused' and payload->>'previousStatus' = 'active'`)).toBe(1);
    // The running gateway's relay publishes it.
    await expectEventually(async () => expect(await count('outbox', 'published_at is null')).toBe(0), { timeoutMs: 5000 });
    const res = await gw.call('GET', `/v1/connections/${connectionId}`, { headers: bearer(keyToken) });
    expect(res.body).toMatchObject({ status: 'paused' });
  });

  it.each([
    ['five signals', ['--signals', 'odometer,faults,engineHours,location,odometer'], /selectedSignals/],
    ['an unknown signal', ['--signals', 'speed'], /--signals: unknown value "speed"/],
    ['an unknown purpose', ['--purposes', 'vehicles,drivers'], /--purposes: unknown value "drivers"/],
    ['an unknown opt-in', ['--opt-ins', 'everything'], /--opt-ins: unknown value "everything"/],
    ['an unknown status', ['--status', 'sleeping'], /--status: unknown value "sleeping"/],
    ['a non-boolean switch', ['--unified-collection', 'yes'], /--unified-collection: unknown value "yes"/],
    ['an unknown record status', ['--include-statuses', 'active,retired'], /--include-statuses: unknown value "retired"/],
    ['a vehicle both included and excluded', ['--include', 'v9', '--exclude', 'v9'], /excludeVehicleIds/],
    ['101 approved groups', ['--approved-groups', Array.from({ length: 101 }, (_, i) => `g${i}`).join(',')], /at most 100/],
    ['nothing to change', [], /nothing to change/],
  ])('connection:configure with %s is a clear error and writes nothing', async (_label, flags, message) => {
    const [revision, outbox] = [((await op('connection:show', '--connection', connectionId)) as { revision: number }).revision, await count('outbox')];
    // A valid flag beside the bad one must not be applied either.
    const extra = flags.length === 0 || flags.includes('--status') ? [] : ['--status', 'active'];
    await expect(op('connection:configure', '--connection', connectionId, ...extra, ...flags)).rejects.toThrow(message);
    const after = (await op('connection:show', '--connection', connectionId)) as { revision: number; status: string };
    expect({ revision: after.revision, status: after.status, outbox: await count('outbox') }).toEqual({ revision, status: 'paused', outbox });
  });

  it.each([
    ['no command', [], /usage:/],
    ['an unknown command', ['key:delete'], /unknown command key:delete/],
    ['an unknown option', ['key:create', '--name', 'x', '--colour', 'red'], /--colour/],
    ['a missing value', ['app:create', '--name', 'x'], /--env is required/],
    ['an unknown environment', ['app:create', '--name', 'x', '--env', 'staging'], /--env: unknown value "staging"/],
    ['an unknown provider', ['connection:create', '--customer', 'c', '--provider', 'verizon', '--env', 'sandbox'], /--provider: unknown value "verizon"/],
    ['credentials that are not JSON', ['connection:create', '--customer', 'c', '--provider', 'geotab', '--env', 'sandbox', '--credentials', '{apiToken:1}'], /--credentials must be a JSON object/],
    ['credentials with a non-string value', ['connection:create', '--customer', 'c', '--provider', 'geotab', '--env', 'sandbox', '--credentials', '{"port":5432}'], /non-empty strings/],
    ['a connection id that is not an id', ['connection:show', '--connection', 'conn-1'], /--connection must be an id/],
    ['an unknown permission', ['grant:consumer', '--key', '7a1f9c1e-3b7d-4d6e-9a51-2d0f4b8e7c13', '--connection', '7a1f9c1e-3b7d-4d6e-9a51-2d0f4b8e7c13', '--permissions', 'read,admin'], /unknown value "admin"/],
    ['a grant without --permissions (would silently revoke)', ['grant:consumer', '--key', '7a1f9c1e-3b7d-4d6e-9a51-2d0f4b8e7c13', '--connection', '7a1f9c1e-3b7d-4d6e-9a51-2d0f4b8e7c13'], /--permissions is required/],
    ['an unknown operation', ['grant:app', '--app', '7a1f9c1e-3b7d-4d6e-9a51-2d0f4b8e7c13', '--connection', '7a1f9c1e-3b7d-4d6e-9a51-2d0f4b8e7c13', '--operations', 'sync.delete'], /unknown value "sync.delete"/],
    ['an unknown revoke kind', ['revoke', 'password', 'abc'], /usage:/],
    ['a stray argument', ['list', 'everything'], /unexpected argument "everything"/],
  ])('%s is a clear error and writes nothing', async (_label, argv, message) => {
    const tables = ['application', 'consumer_key', 'connection', 'consumer_grant', 'application_grant', 'outbox'];
    const before = await Promise.all(tables.map((t) => count(t)));
    await expect(runOperator(argv, env)).rejects.toThrow(message);
    expect(await Promise.all(tables.map((t) => count(t)))).toEqual(before);
  });

  it('unknown ids are reported by name', async () => {
    const missing = '7a1f9c1e-3b7d-4d6e-9a51-2d0f4b8e7c13';
    await expect(op('connection:show', '--connection', missing)).rejects.toThrow('connection_not_found');
    await expect(op('connection:configure', '--connection', missing, '--status', 'active')).rejects.toThrow('connection_not_found');
    await expect(op('grant:consumer', '--key', missing, '--connection', connectionId, '--permissions', 'read')).rejects.toThrow('consumer_key_not_found');
    await expect(op('token:issue', '--app', missing, '--connection', connectionId)).rejects.toThrow('application_not_found');
    await expect(op('revoke', 'consumer-key', missing)).rejects.toThrow('credential_not_found');
  });

  it('list shows display prefixes and grants, never a hash or a secret', async () => {
    const listing = await op('list');
    const text = JSON.stringify(listing);
    expect(text).toContain(keyId);
    expect(text).toContain(appId);
    for (const forbidden of [/secret_?hash/i, /lookup_?id/i, /provider_?credentials/i, /"token"/, keyToken.slice(-20), 'motive-secret-value']) expect(text).not.toMatch(forbidden);
    const keys = (listing as { consumerKeys: Json[] }).consumerKeys;
    expect(Object.keys(keys.find((k) => k.id === keyId)!).sort()).toEqual(['createdAt', 'displayPrefix', 'id', 'name', 'revokedAt']);
  });

  it('revoke stops the key on the next request', async () => {
    const url = `/v1/connections/${connectionId}`;
    expect((await gw.call('GET', url, { headers: bearer(keyToken) })).status).toBe(200);
    expect(await op('grant:consumer', '--key', keyId, '--connection', connectionId, '--permissions', '')).toMatchObject({ ok: true, permissions: [] });
    expect((await gw.call('GET', url, { headers: bearer(keyToken) })).status).toBe(404);
    await op('grant:consumer', '--key', keyId, '--connection', connectionId, '--permissions', 'read');
    expect((await gw.call('GET', url, { headers: bearer(keyToken) })).status).toBe(200);
    expect(await op('revoke', 'consumer-key', keyId)).toEqual({ ok: true, alreadyRevoked: false });
    const res = await gw.call('GET', url, { headers: bearer(keyToken) });
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ error: 'unauthorized' });
  });

  it('revoking again is a no-op that says so: the first revokedAt stays, no version moves, nothing is published', async () => {
    const state = async (table: string, id: string) =>
      (await gw.service.runtime.orm.em.getConnection().execute<Json[]>(`select * from "${gw.schemas.gateway}"."${table}" where id = ?`, [id]))[0]!;
    const app = await op('app:create', '--name', 'revoked twice', '--env', 'sandbox');
    const token = await op('token:issue', '--app', app.id as string, '--connection', connectionId);
    const key = await op('key:create', '--name', 'revoked twice');
    const revocations: [string, string, string][] = [
      ['connection-token', 'connection_token', token.id as string],
      ['application', 'application', app.id as string],
      ['consumer-key', 'consumer_key', key.id as string],
    ];
    for (const [kind, table, id] of revocations) {
      expect(await op('revoke', kind, id)).toEqual({ ok: true, alreadyRevoked: false });
      const [first, application, outbox] = [await state(table, id), await state('application', app.id as string), await count('outbox')];
      expect(first.revoked_at).not.toBeNull();
      await new Promise((resolve) => setTimeout(resolve, 5));
      expect(await op('revoke', kind, id)).toEqual({ ok: true, alreadyRevoked: true });
      expect(await state(table, id)).toEqual(first);
      expect(await state('application', app.id as string)).toEqual(application);
      expect(await count('outbox')).toBe(outbox);
    }
    // By display prefix too.
    expect(await op('revoke', 'connection-token', token.displayPrefix as string)).toEqual({ ok: true, alreadyRevoked: true });
  });

  it('operator:create issues an operator credential that no API route accepts; revoke operator revokes it once', async () => {
    const operator = await op('operator:create', '--name', 'night shift');
    expect(operator.token).toMatch(/^op_[0-9A-Za-z]{52}$/);
    expect(await count('operator_credential', `id = '${operator.id as string}' and revoked_at is null`)).toBe(1);
    // Stored as its hash only.
    const stored = await gw.service.runtime.orm.em.getConnection().execute<{ dump: string }[]>(`select t::text as dump from "${gw.schemas.gateway}".operator_credential t`);
    expect(stored.map((r) => r.dump).join('\n')).not.toContain((operator.token as string).slice(15));
    // An operator credential is not a consumer key: the API answers as for any unknown credential.
    const res = await gw.call('GET', `/v1/connections/${connectionId}`, { headers: bearer(operator.token as string) });
    expect([res.status, res.body]).toEqual([401, { error: 'unauthorized' }]);
    expect(JSON.stringify(await op('list'))).toContain(operator.displayPrefix as string);
    expect(await op('revoke', 'operator', operator.displayPrefix as string)).toEqual({ ok: true, alreadyRevoked: false });
    expect(await op('revoke', 'operator', operator.id as string)).toEqual({ ok: true, alreadyRevoked: true });
  });

  it('connection:pause --reason keeps the reason and its time beside the status; a change without one forgets it', async () => {
    const reason = async () =>
      (await gw.service.runtime.orm.em.getConnection().execute<{ status_reason: string | null; changed: boolean }[]>(
        `select status_reason, status_changed_at is not null as changed from "${gw.schemas.gateway}".connection where id = ?`,
        [connectionId],
      ))[0]!;
    await op('connection:pause', '--connection', connectionId, '--reason', 'provider contract renewal');
    expect(await reason()).toEqual({ status_reason: 'provider contract renewal', changed: true });
    await expect(op('connection:pause', '--connection', connectionId, '--reason', 'two\nlines')).rejects.toThrow('--reason must be 1 to 500 characters on one line');
    await op('connection:resume', '--connection', connectionId);
    expect(await reason()).toEqual({ status_reason: null, changed: true });
  });

  it('the process entry prints JSON and exits 0, or prints the reason and exits 1', async () => {
    const out: string[] = [];
    const err: string[] = [];
    const io = { out: (t: string) => out.push(t), err: (t: string) => err.push(t) };
    expect(await operatorMain(['key:create', '--name', 'main entry'], env, io)).toBe(0);
    expect(JSON.parse(out.join(''))).toMatchObject({ token: expect.stringMatching(/^pt_/) });
    expect(await operatorMain(['app:create', '--name', 'x', '--env', 'staging'], env, io)).toBe(1);
    expect(err.join('\n')).toContain('--env: unknown value "staging"');
    expect(err.join('\n')).not.toMatch(/\n\s+at /);
  });

  // mutation: create ignoring `config` (defaults in revision 1, as the sandbox seed's create + configure left the scheduler) → this fails.
  it('create with an initial configuration announces it as revision 1, one event; an invalid one writes nothing', async () => {
    const outbox = await count('outbox');
    const config = { unifiedCollection: true, purposes: { vehicles: true, groupMemberships: false, trips: true }, selectedSignals: ['odometer' as const] };
    const created = await gw.connections.create({ customerId: 'seeded', provider: 'motive', environment: 'sandbox', config });
    expect(created).toMatchObject({ revision: 1, status: 'active', ...config });
    expect(await count('outbox')).toBe(outbox + 1);
    expect(await op('connection:show', '--connection', created.connectionId)).toMatchObject({ revision: 1, unifiedCollection: true });
    const connections = await count('connection');
    await expect(gw.connections.create({ customerId: 'bad', provider: 'motive', environment: 'sandbox', config: { selectedSignals: ['odometer', 'odometer'] } })).rejects.toThrow(/^invalid_config: /);
    expect([await count('connection'), await count('outbox')]).toEqual([connections, outbox + 1]);
  });

  describe('beside npm start (no DATABASE_URL): the database the launcher recorded in <data dir>/local-stack.json', () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'sy-op-'));
    const sandboxDb: { current?: TestDatabase } = {};
    const record = (stack: Partial<LocalStack>) =>
      writeLocalStack(dataDir, { databaseUrl: '', embeddedDatabase: false, natsUrl: null, natsNamespace: '', pid: 1, startedAt: new Date().toISOString(), ...stack });
    const besideLauncher = () => ({ DB_SCHEMA: env.DB_SCHEMA, SWITCHYARD_DATA_DIR: dataDir, SWITCHYARD_MASTER_KEY: env.SWITCHYARD_MASTER_KEY, CURSOR_SECRET: env.CURSOR_SECRET });
    afterAll(async () => {
      await sandboxDb.current?.drop();
      rmSync(dataDir, { recursive: true, force: true });
    });

    // mutation: runOperator resolving DATABASE_URL from `env` instead of withLocalStack(env) → the connection lands in the default database, and this fails.
    it('creates and finds a connection in the recorded database, not in the default one', async () => {
      sandboxDb.current = await createTestDatabase(gw.databaseUrl, 'sy_op');
      record({ databaseUrl: sandboxDb.current.url });
      const created = (await runOperator(['connection:create', '--customer', 'beside-npm-start', '--provider', 'samsara', '--env', 'sandbox'], besideLauncher())) as Json;
      expect(await runOperator(['connection:show', '--connection', created.connectionId as string], { ...env, DATABASE_URL: sandboxDb.current.url })).toMatchObject({ connectionId: created.connectionId, provider: 'samsara' });
      await expect(op('connection:show', '--connection', created.connectionId as string)).rejects.toThrow('connection_not_found');
    });

    // mutation: drop the embeddedDatabaseDown check → the ORM's bare ECONNREFUSED instead of this sentence.
    it("says what to do when the recorded database is the launcher's embedded PostgreSQL and it is not running", async () => {
      record({ databaseUrl: 'postgres://postgres@127.0.0.1:1/switchyard', embeddedDatabase: true });
      await expect(runOperator(['list'], besideLauncher())).rejects.toThrow(/embedded PostgreSQL that npm start runs .*it runs only while npm start does/);
    });
  });

  it('every command above ran against the isolated schema', async () => {
    expect(env.DB_SCHEMA).toBe(gw.schemas.gateway);
    expect(await count('consumer_key', `name = 'cli key'`)).toBe(1);
  });

  // Last: it stops the test gateway's change listener. Without a notification only the cache's TTL
  // (1 s by default) ends the entry the first request made; the command returns after that bound.
  // Mutation tried: runOperator not waiting PRINCIPAL_CACHE_TTL_MS after a committed change → the
  // request right after the revoke is served from the cache (200), the test fails.
  it('a revoke holds when the command returns, even in a gateway that hears no notification', async () => {
    await gw.service.app.get(CredentialChangeListener).beforeApplicationShutdown();
    const key = await op('key:create', '--name', 'deaf gateway');
    await op('grant:consumer', '--key', key.id as string, '--connection', connectionId, '--permissions', 'read');
    const url = `/v1/connections/${connectionId}`;
    expect((await gw.call('GET', url, { headers: bearer(key.token as string) })).status).toBe(200);
    await op('revoke', 'consumer-key', key.id as string);
    expect((await gw.call('GET', url, { headers: bearer(key.token as string) })).status).toBe(401);
  });
});
