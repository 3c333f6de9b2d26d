/**
 * The operator side of connect sessions (decision 0022) through the CLI: pause and resume, the
 * Geotab database/server binding, and the activation policy — collection stays disabled after a
 * completed enrollment until `connection:activate` installs a policy limited to (a subset of) the
 * signals the customer approved (spec 3 session rule 3).
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { runOperator, SecretBox } from '../src/index.js';
import { bearer, startTestGateway, type TestGateway } from './support.js';

type Json = Record<string, unknown>;

let gw: TestGateway;
let env: NodeJS.ProcessEnv;
let manager: string;
let managerId: string;
const op = async (...argv: string[]) => (await runOperator(argv, env)) as Json;

beforeAll(async () => {
  gw = await startTestGateway();
  env = { DATABASE_URL: gw.databaseUrl, DB_SCHEMA: gw.schemas.gateway, SWITCHYARD_MASTER_KEY: SecretBox.generateKey(), CURSOR_SECRET: randomBytes(32).toString('base64url') };
  const key = await gw.credentials.createConsumerKey('operator test');
  [manager, managerId] = [key.token, key.id];
});

afterAll(async () => {
  await gw?.close();
});

/** What a completed connect session leaves behind (the page's completion, without a provider). */
async function completedEnrollment(connectionId: string, signals: ('odometer' | 'faults' | 'engineHours' | 'location')[]): Promise<void> {
  await gw.service.runtime.orm.em.fork().transactional((em) => gw.connections.apply(em, connectionId, { selectedSignals: signals }, { activationPending: true }));
}

describe('operator CLI: pause, resume, activation, Geotab binding', () => {
  it('connection:pause lets a connect session be created; connection:resume makes it active again', async () => {
    const c = await gw.connections.create({ customerId: 'cust-op', provider: 'samsara', environment: 'sandbox' });
    await gw.credentials.grantConsumer(managerId, c.connectionId, ['read', 'manage']);
    const create = () => gw.call('POST', `/v1/connections/${c.connectionId}/connect-sessions`, { headers: bearer(manager) });
    expect((await create()).status).toBe(409);
    expect(await op('connection:pause', '--connection', c.connectionId)).toMatchObject({ status: 'paused' });
    expect((await create()).status).toBe(200);
    expect(await op('connection:resume', '--connection', c.connectionId)).toMatchObject({ status: 'active' });
  });

  it('after a completed enrollment: resume is refused until connection:activate installs a policy within the approved signals', async () => {
    const c = await gw.connections.create({ customerId: 'cust-op2', provider: 'samsara', environment: 'sandbox' });
    await op('connection:pause', '--connection', c.connectionId);
    await expect(op('connection:activate', '--connection', c.connectionId, '--signals', 'odometer')).rejects.toThrow(/no_activation_pending/);
    await completedEnrollment(c.connectionId, ['odometer', 'location']);
    await expect(op('connection:resume', '--connection', c.connectionId)).rejects.toThrow(/activation_policy_required/);
    await expect(op('connection:configure', '--connection', c.connectionId, '--status', 'active')).rejects.toThrow(/activation_policy_required/);
    await expect(op('connection:activate', '--connection', c.connectionId, '--signals', 'odometer,faults')).rejects.toThrow(/signals_not_approved.*not approved: faults/);
    await expect(op('connection:activate', '--connection', c.connectionId, '--signals', 'bogus')).rejects.toThrow(/unknown value "bogus"/);
    expect((await gw.connections.get(c.connectionId))?.status).toBe('paused');
    const activated = await op('connection:activate', '--connection', c.connectionId, '--signals', 'location');
    expect(activated).toMatchObject({ status: 'active', selectedSignals: ['location'] });
    // Installed once: pausing and resuming later needs no new policy.
    await op('connection:pause', '--connection', c.connectionId);
    expect(await op('connection:resume', '--connection', c.connectionId)).toMatchObject({ status: 'active' });
  });

  it('connection:geotab-binding approves the database and server; refused for other providers and for a server that is no base URL', async () => {
    const g = await gw.connections.create({ customerId: 'cust-geo', provider: 'geotab', environment: 'sandbox' });
    const s = await gw.connections.create({ customerId: 'cust-sam', provider: 'samsara', environment: 'sandbox' });
    await expect(op('connection:geotab-binding', '--connection', g.connectionId, '--database', 'acme', '--server', 'my.geotab.com/apiv1')).rejects.toThrow(/--server must be a base URL/);
    await expect(op('connection:geotab-binding', '--connection', s.connectionId, '--database', 'acme', '--server', 'https://my.geotab.com')).rejects.toThrow(/not_geotab/);
    expect(await op('connection:geotab-binding', '--connection', g.connectionId, '--database', 'acme', '--server', 'https://my512.geotab.com/')).toEqual({ connectionId: g.connectionId, database: 'acme', server: 'https://my512.geotab.com' });
    await op('connection:pause', '--connection', g.connectionId);
    await gw.credentials.grantConsumer(managerId, g.connectionId, ['manage']);
    expect((await gw.call('POST', `/v1/connections/${g.connectionId}/connect-sessions`, { headers: bearer(manager) })).status).toBe(200);
  });
});
