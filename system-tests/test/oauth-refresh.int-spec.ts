/**
 * An OAuth connection keeps syncing after its access token expires (decision 0027), end to end on
 * the real PostgreSQL and NATS: the Samsara simulator as its own process issues access tokens that
 * live TTL_S seconds (`SIM_OAUTH_ACCESS_TOKEN_TTL_SECONDS`) and rotates refresh tokens; the gateway
 * holds the grant sealed and refreshes it at its token endpoint; the orchestrator's adapter, refused
 * with 401, asks the gateway again naming the refused token and repeats the call.
 *
 * - A sync after the token expired completes, the provider really refused the cached token (401s
 *   in its traffic) and really refreshed (refresh_token grants), the sealed grant rotated, the
 *   connection's health shows no error, and no token reaches a log line.
 * - A grant the provider no longer honours (its refresh token used elsewhere) fails the sync with
 *   `provider_auth_required`, on the sync and on the connection's health.
 *
 * Mutation checked: the orchestrator's adapter without `refreshingAdapter` (adapter-factory.ts
 * `build` returning `first.adapter`) → the sync after expiry fails with provider_auth_required.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { ConnectionsAdmin, requestToken, SecretBox } from '@switchyard/gateway';
import { pollUntil } from '@switchyard/testing';
import { PipelineStack, type PipelineConnection } from './pipeline-stack.js';

const TTL_S = 3;

let stack: PipelineStack;
let connection: PipelineConnection;
let grant: Awaited<ReturnType<PipelineStack['samsaraGrant']>>;
let approved: string[];

const stored = () => new ConnectionsAdmin(stack.gateway.runtime.orm, new SecretBox(stack.masterKey)).providerCredentials(connection.connectionId);

async function simulator<T>(path: string, init?: RequestInit): Promise<T> {
  const res = await fetch(`${stack.samsara.url}${path}`, init);
  expect(res.status).toBe(200);
  return (await res.json()) as T;
}

/** 401s the simulator answered so far (its traffic counters of every account). */
async function refusals(): Promise<number> {
  const stats = await simulator<{ accounts: Record<string, { byStatus: Record<string, number> }> }>('/_sim/stats');
  return Object.values(stats.accounts).reduce((n, a) => n + (a.byStatus['401'] ?? 0), 0);
}

const refreshGrants = async () => (await simulator<{ tokenRequests: { refresh_token: number } }>('/_sim/oauth')).tokenRequests.refresh_token;

/** Waits until the token the orchestrator's cached adapter holds has surely expired. */
const outliveToken = () => new Promise((r) => setTimeout(r, (TTL_S + 1) * 1000));

beforeAll(async () => {
  stack = await PipelineStack.start({
    name: 'oauth-refresh',
    samsaraSimulator: { SIM_VEHICLES: '2', SIM_CLOCK_FACTOR: '0', SIM_OAUTH_ACCESS_TOKEN_TTL_SECONDS: String(TTL_S) },
    samsaraOAuth: true,
  });
  grant = await stack.samsaraGrant();
  const fleet = await simulator<{ data: { id: string }[] }>('/fleet/vehicles', { headers: { authorization: `Bearer ${grant.apiToken}` } });
  approved = fleet.data.map((v) => v.id).sort();
  connection = await stack.connect({ provider: 'samsara', credentials: grant, customerId: 'fleet-oauth', config: { approvedVehicleIds: approved } });
}, 60_000);

afterAll(() => stack?.close());

describe('OAuth grants outlive their access tokens', () => {
  it('completes a sync after the access token expired: the refused token is refreshed once and the call repeated', async () => {
    const first = await connection.settled((await connection.createSync({ lookbackDays: 1 })).id, 60_000, 200);
    expect(first).toMatchObject({ status: 'completed' });
    const before = { refusals: await refusals(), refreshes: await refreshGrants(), credentials: await stored() };

    await outliveToken();
    const second = await connection.settled((await connection.createSync({ lookbackDays: 1 })).id, 60_000, 200);
    expect(second).toMatchObject({ status: 'completed' });
    expect(second.failureReason).toBeUndefined();

    // The provider refused the expired token the cached adapter held, then a refresh grant renewed it.
    expect(await refusals()).toBeGreaterThan(before.refusals);
    expect(await refreshGrants()).toBeGreaterThan(before.refreshes);
    const after = await stored();
    expect(after).toMatchObject({ apiToken: expect.stringMatching(/^sim_oauth_/), refreshToken: expect.any(String) });
    expect(after!['apiToken']).not.toBe(before.credentials!['apiToken']);
    expect(after!['refreshToken']).not.toBe(before.credentials!['refreshToken']);

    const vehicles = await stack.sql<{ source_id: string }>(`select source_id from $directory.vehicle where connection_id = ?::uuid order by source_id`, [connection.connectionId]);
    expect(vehicles.map((v) => v.source_id)).toEqual(approved);
    expect((await connection.health()).last_error_code ?? null).toBeNull();
    const secrets = [grant.apiToken, grant.refreshToken, after!['apiToken']!, after!['refreshToken']!];
    for (const secret of secrets) expect(stack.logLines.filter((line) => line.includes(secret))).toEqual([]);
  }, 120_000);

  it('fails the sync with provider_auth_required when the provider no longer honours the grant', async () => {
    // Someone else spends the stored refresh token: the provider rotates it, so the gateway's is dead.
    const refreshToken = (await stored())!['refreshToken']!;
    expect(await requestToken('samsara', stack.samsaraOAuthClient, { grant_type: 'refresh_token', refresh_token: refreshToken })).toMatchObject({ ok: true });
    await outliveToken();

    const sync = await connection.settled((await connection.createSync({ lookbackDays: 1 })).id, 60_000, 200);
    expect(sync).toMatchObject({ status: 'failed', failureReason: 'provider_auth_required' });
    await pollUntil(async () => (await connection.health()).last_error_code === 'provider_auth_required', { timeoutMs: 20_000, description: 'the connection health says provider_auth_required' });
  }, 120_000);
});
