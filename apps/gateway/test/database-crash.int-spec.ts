/**
 * The gateway across a crash of its PostgreSQL (a cluster this suite owns on its own port, stopped
 * `immediate`; the machine's shared server is never touched):
 * - Its principal cache's LISTEN connection (decision 0031) listens again once the database is
 *   back, so a key revoked afterwards through the operator's path — another process's ORM, which
 *   only the NOTIFY reaches — is refused here although the cache's TTL is longer than the suite.
 *   Mutation tried: CredentialChangeListener.lost() not scheduling the reconnect → no LISTEN after
 *   the restart (the wait for it fails) and the revoked key stays served.
 * - Transactions cut by the crash give their pooled connections back: with every slot of the pool
 *   in a transaction when the server dies, the gateway serves again after the restart, and
 *   `close()` completes. The cause of restart-under-load's teardown hang (every service, one ORM
 *   factory): kysely 0.29.6 — exactly what MikroORM 7.2.x pins — never released the connection of
 *   a transaction whose ROLLBACK (or BEGIN) failed, so the pool kept dead connections checked out
 *   forever: fewer slots after each outage, and `orm.close()` waits for them (pg-pool's end()).
 *   Mutation tried: the `kysely` override in package.json removed (back to 0.29.6) → the pool
 *   stays exhausted (catalog reads never answer 200 again) and close() does not complete.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { pollUntil, settledWithin, startOwnedPostgres, type OwnedPostgres } from '@switchyard/testing';
import { runOperator } from '../src/index.js';
import { bearer, startTestGateway, type TestGateway } from './support.js';

/** Far longer than the suite: a cached credential can only stop working by the pushed invalidation. */
const CACHE_TTL_MS = 600_000;

let pg: OwnedPostgres;
let gw: TestGateway | undefined;
const sharedDatabaseUrl = process.env.DATABASE_URL;

beforeAll(async () => {
  pg = await startOwnedPostgres();
  process.env.DATABASE_URL = pg.url;
  gw = await startTestGateway({ principalCacheTtlMs: CACHE_TTL_MS });
}, 120_000);

afterAll(async () => {
  try {
    // Bounded: a close that hangs (the failure the second test looks for) must not keep the owned cluster running.
    await settledWithin(gw?.close(), 30_000);
  } finally {
    if (sharedDatabaseUrl === undefined) delete process.env.DATABASE_URL;
    else process.env.DATABASE_URL = sharedDatabaseUrl;
    await pg?.destroy();
  }
}, 120_000);

function gateway(): TestGateway {
  if (!gw) throw new Error('the gateway was closed by an earlier test');
  return gw;
}

/** The catalog's status for `token` (any route that authenticates will do). */
async function catalogStatus(token: string): Promise<number> {
  return (await gateway().call('GET', '/v1/catalog', { headers: bearer(token) })).status;
}

/** Crashes the owned server and starts it again. */
async function crashAndRestart(): Promise<void> {
  await pg.stop('immediate');
  await pg.start();
}

describe('after a PostgreSQL crash', () => {
  it('the principal cache listens again: a key revoked after the restart is refused', async () => {
    const key = await gateway().credentials.createConsumerKey('crash-cached');
    expect(await catalogStatus(key.token)).toBe(200);
    await crashAndRestart();
    // The listener reconnects with backoff (250 ms doubling): wait for its LISTEN on the new server.
    await pollUntil(
      async () => {
        const [row] = await gateway().service.runtime.orm.em.fork().execute<{ n: string }[]>(`select count(*)::text as n from pg_stat_activity where query like 'listen "switchyard_credentials_%'`);
        return row?.n === '1';
      },
      { timeoutMs: 20_000, intervalMs: 100, description: 'the credential change listener to LISTEN again' },
    );
    // Cached again (the reconnect cleared the cache); from here only a notification can clear it.
    await pollUntil(async () => (await catalogStatus(key.token)) === 200, { timeoutMs: 10_000, description: 'the key served after the restart' });
    await runOperator(['revoke', 'consumer-key', key.id], { DATABASE_URL: pg.url, DB_SCHEMA: gateway().schemas.gateway });
    await pollUntil(async () => (await catalogStatus(key.token)) === 401, { timeoutMs: 10_000, description: 'the revoked key refused (cache TTL is 10 minutes)' });
  }, 60_000);

  it('transactions cut by the crash give their connections back: the gateway serves again and closes', async () => {
    const key = await gateway().credentials.createConsumerKey('crash-pool');
    const orm = gateway().service.runtime.orm;
    const poolMax = (orm.config.get('pool') as { max: number }).max;
    // Every slot of the pool in a transaction when the server dies.
    let holding = 0;
    let allHolding!: () => void;
    const held = new Promise<void>((resolve) => (allHolding = resolve));
    let crashed!: () => void;
    const crash = new Promise<void>((resolve) => (crashed = resolve));
    const cut = Array.from({ length: poolMax }, () =>
      orm.em
        .fork()
        .transactional(async (em) => {
          await em.execute('select 1');
          if (++holding === poolMax) allHolding();
          await crash;
          await em.execute('select 1');
        })
        .then(
          () => 'committed',
          () => 'failed',
        ),
    );
    await held;
    await pg.stop('immediate');
    crashed();
    expect(await Promise.all(cut)).toEqual(Array.from({ length: poolMax }, () => 'failed'));
    await pg.start();

    await pollUntil(async () => (await catalogStatus(key.token)) === 200, { timeoutMs: 20_000, intervalMs: 200, description: 'a catalog read answered 200 after the restart (the pool not starved)' });
    // A liveness deadline, not a timing: a close that waits on leaked connections never completes.
    const closing = gateway().close();
    gw = undefined;
    expect(await settledWithin(closing, 30_000)).toBe('settled');
  }, 90_000);
});
