/**
 * The refresh limit's claim on the real PostgreSQL: two pools on one schema (two processes) claim
 * the same asset at once and exactly one wins; the loser is told how long until the slot frees;
 * the slot frees once its grant is older than the interval; assets are independent.
 * Mutation tried: dropping the upsert's `where s.granted_at <= …` lets every concurrent claim win
 * (the first test then sees 20 grants).
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { createOrm, type Orm } from '@switchyard/persistence';
import { startServiceForTest, type ServiceUnderTest } from '@switchyard/testing';
import { startSyncOrchestrator, syncOrchestratorService } from '../src/index.js';
import { RefreshSlotRepository } from '../src/db/repositories/refresh-slot.repository.js';

let h: ServiceUnderTest;
let ormB: Orm;

beforeAll(async () => {
  h = await startServiceForTest(syncOrchestratorService, { start: startSyncOrchestrator });
  ormB = await createOrm({
    clientUrl: h.databaseUrl,
    schema: h.schema,
    entities: syncOrchestratorService.entities,
    migrations: syncOrchestratorService.migrations,
    allServiceSchemas: Object.values(h.schemas),
  });
});

afterAll(async () => {
  await ormB?.close(true);
  await h?.close();
});

describe('RefreshSlotRepository', () => {
  it('of 20 concurrent claims from two processes exactly one is granted; the others wait the rest of the interval', async () => {
    const a = new RefreshSlotRepository(h.service.runtime.orm);
    const b = new RefreshSlotRepository(ormB);
    const connectionId = randomUUID();
    const claims = await Promise.all(Array.from({ length: 20 }, (_, i) => (i % 2 === 0 ? a : b).claim(connectionId, 'veh-1', 30)));
    expect(claims.filter((c) => c.granted)).toHaveLength(1);
    for (const claim of claims.filter((c) => !c.granted)) {
      expect(claim).toEqual({ granted: false, retryAfterSeconds: expect.any(Number) });
      if (!claim.granted) {
        expect(claim.retryAfterSeconds).toBeGreaterThanOrEqual(29);
        expect(claim.retryAfterSeconds).toBeLessThanOrEqual(30);
      }
    }
  });

  it('frees the slot once the grant is older than the interval, and limits each asset alone', async () => {
    const slots = new RefreshSlotRepository(h.service.runtime.orm);
    const connectionId = randomUUID();
    expect(await slots.claim(connectionId, 'veh-1', 30)).toEqual({ granted: true });
    expect((await slots.claim(connectionId, 'veh-1', 30)).granted).toBe(false);
    expect(await slots.claim(connectionId, 'veh-2', 30)).toEqual({ granted: true });
    expect(await slots.claim(randomUUID(), 'veh-1', 30)).toEqual({ granted: true });
    await h.service.runtime.orm.em
      .fork()
      .execute(`update "${h.schema}".refresh_slot set granted_at = granted_at - interval '31 seconds' where connection_id = ? and vehicle_source_id = 'veh-1'`, [connectionId]);
    expect(await slots.claim(connectionId, 'veh-1', 30)).toEqual({ granted: true });
    expect((await slots.claim(connectionId, 'veh-1', 30)).granted).toBe(false);
  });
});
