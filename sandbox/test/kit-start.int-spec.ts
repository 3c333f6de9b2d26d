// startSimulators: one simulator per given definition, per-provider fleets, credentials in the
// shape of sandbox-credentials.json, deterministic from the seed unless randomCredentials.
import { describe, expect, it } from '@jest/globals';
import { fixedClock, startSimulators, type SimulatorDefinition } from '../src/index.js';

const dialect = (provider: SimulatorDefinition['provider']): SimulatorDefinition => ({
  provider,
  account: (req) => req.headers['x-account'],
  error: (kind) => ({ status: kind === 'unauthorized' ? 401 : 500, body: { kind } }),
  rateLimits: () => [],
  recordsOf: () => undefined,
  matchKey: (req) => req.path,
  handle: async (_req, ctx) => ({ status: 200, body: { provider: ctx.provider, account: ctx.account, vehicles: ctx.fleet.vehicles().length, user: ctx.accountInfo.userName ?? null } }),
});
const definitions = { samsara: dialect('samsara'), motive: dialect('motive'), geotab: dialect('geotab') };

describe('startSimulators', () => {
  it('starts each given provider with credentials that work', async () => {
    const run = await startSimulators({ seed: 's1', vehicles: 7, clock: fixedClock(Date.UTC(2025, 1, 1)), controlApi: true, definitions });
    try {
      const { samsara, motive, geotab } = run.credentials;
      if (!samsara || !motive || !geotab) throw new Error('missing credentials');
      expect(samsara.apiToken).toMatch(/^samsara_api_[0-9a-f]{40}$/);
      expect(motive.apiKey).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
      expect(geotab).toMatchObject({ database: 'switchyard_demo', userName: 'sandbox@switchyard.example' });
      expect(geotab.password.length).toBeGreaterThanOrEqual(16);
      const answers = await Promise.all(
        [
          [samsara.baseUrl, samsara.apiToken],
          [motive.baseUrl, motive.apiKey],
          [geotab.baseUrl, geotab.database],
        ].map(async ([url, account]) => (await fetch(`${url}/anything`, { headers: { 'x-account': account as string } })).json()),
      );
      expect(answers).toEqual([
        { provider: 'samsara', account: samsara.apiToken, vehicles: 7, user: null },
        { provider: 'motive', account: motive.apiKey, vehicles: 7, user: null },
        { provider: 'geotab', account: geotab.database, vehicles: 7, user: geotab.userName },
      ]);
      expect(new Set([samsara.baseUrl, motive.baseUrl, geotab.baseUrl]).size).toBe(3);
      expect(run.fleets.samsara?.vehicle(0).vin).not.toBe(run.fleets.motive?.vehicle(0).vin);
      expect((await fetch(`${samsara.baseUrl}/anything`, { headers: { 'x-account': motive.apiKey } })).status).toBe(401);
      expect((await fetch(`${samsara.baseUrl}/_sim/clock`)).status).toBe(200);

      const again = await startSimulators({ seed: 's1', vehicles: 1, clock: fixedClock(0), controlApi: false, definitions: { samsara: definitions.samsara }, accountsPerProvider: 2 });
      try {
        expect(again.credentials.samsara?.apiToken).toBe(samsara.apiToken);
        expect(again.accounts.samsara).toHaveLength(2);
        expect(again.credentials.motive).toBeUndefined();
      } finally {
        await again.close();
      }
      const random = await startSimulators({ seed: 's1', vehicles: 1, clock: fixedClock(0), controlApi: false, definitions: { samsara: definitions.samsara }, randomCredentials: true });
      await random.close();
      expect(random.credentials.samsara?.apiToken).not.toBe(samsara.apiToken);
    } finally {
      await run.close();
    }
  });

  it('refuses a definition filed under the wrong provider', async () => {
    await expect(startSimulators({ seed: 's', vehicles: 1, clock: fixedClock(0), controlApi: false, definitions: { motive: definitions.samsara } })).rejects.toThrow(/samsara simulator/);
  });
});
