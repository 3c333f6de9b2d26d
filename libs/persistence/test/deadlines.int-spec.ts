/**
 * The session deadlines of every pooled connection (issue 14, item 3), on the real PostgreSQL: the
 * defaults are what the server sees (`show`), and each deadline fires and is classified as what a
 * request answers 503 for — a statement past `statement_timeout` and a lock wait past
 * `lock_timeout` as `isDatabaseDeadline`, a pool slot not free within the connect deadline as
 * `isDatabaseUnavailable`. Figures printed with `[db-deadlines]`.
 * Mutations tried: `statement_timeout` dropped from pgDeadlines (orm.ts): the 2 s sleep completes
 * and "a statement past statement_timeout" fails; `lock_timeout` dropped: the lock wait is cut by
 * the statement deadline instead (no lock timeout) and "a lock wait past lock_timeout" fails; `isLockTimeout` left out of
 * `isDatabaseDeadline`: the lock case's classification fails.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { isDatabaseDeadline, isDatabaseUnavailable, isLockTimeout, isStatementTimeout } from '../src/availability.js';
import { migrateUp } from '../src/migrations.js';
import { createOrm, type Orm } from '../src/orm.js';
import { DeviceSchema } from './fixtures/device.entity.js';
import { deviceMigrations } from './fixtures/device.migrations.js';
import { databaseUrl, dropSchemas, uniqueSchema } from './support.js';

const schema = uniqueSchema('persist_deadlines');
/** Default deadlines (DEFAULT_DATABASE_TIMEOUTS). */
let defaults: Orm;
/** Short deadlines and the smallest pool (two connections), so each fires within a test. */
let short: Orm;

const SHORT = { connectMs: 500, statementMs: 300, lockMs: 200 };

beforeAll(async () => {
  const common = { clientUrl: databaseUrl, schema, entities: [DeviceSchema], migrations: deviceMigrations, logger: () => undefined };
  defaults = await createOrm({ ...common, poolMax: 2 });
  await migrateUp(defaults, { log: () => undefined });
  short = await createOrm({ ...common, poolMax: 2, timeouts: SHORT });
});

afterAll(async () => {
  await dropSchemas(defaults, [schema]);
  await Promise.all([defaults?.close(true), short?.close(true)]);
});

/** The error `work` rejects with, and how long it took. */
async function failure(work: () => Promise<unknown>): Promise<{ error: unknown; ms: number }> {
  const startedAt = Date.now();
  try {
    await work();
  } catch (error) {
    return { error, ms: Date.now() - startedAt };
  }
  throw new Error('expected the statement to fail');
}

describe('database deadlines', () => {
  it('sends the default deadlines to every pooled connection', async () => {
    const em = defaults.em.fork();
    const [row] = await em.execute<{ statement: string; lock: string; idle: string }[]>(
      "select current_setting('statement_timeout') as statement, current_setting('lock_timeout') as lock, current_setting('idle_in_transaction_session_timeout') as idle",
    );
    expect(row).toEqual({ statement: '30s', lock: '10s', idle: '1min' });
  });

  it('a statement past statement_timeout fails as a database deadline (503), not as unavailable', async () => {
    const { error, ms } = await failure(() => short.em.fork().execute('select pg_sleep(2)'));
    console.log(`[db-deadlines] statement_timeout ${SHORT.statementMs} ms: a 2 s statement cancelled after ${ms} ms`);
    expect({ statement: isStatementTimeout(error), deadline: isDatabaseDeadline(error), unavailable: isDatabaseUnavailable(error) }).toEqual({ statement: true, deadline: true, unavailable: false });
  });

  it('a lock wait past lock_timeout fails as a database deadline (503)', async () => {
    const holder = defaults.em.fork();
    await holder.begin();
    try {
      await holder.execute(`lock table "${schema}".device in access exclusive mode`);
      const { error, ms } = await failure(() => short.em.fork().execute(`select count(*) from "${schema}".device`));
      console.log(`[db-deadlines] lock_timeout ${SHORT.lockMs} ms: a read of a locked table gave up after ${ms} ms`);
      expect({ lock: isLockTimeout(error), deadline: isDatabaseDeadline(error), unavailable: isDatabaseUnavailable(error) }).toEqual({ lock: true, deadline: true, unavailable: false });
    } finally {
      await holder.rollback();
    }
  });

  it('a pool slot not free within the connect deadline fails as unavailable (503)', async () => {
    // Both pooled connections held by open transactions.
    const holders = [short.em.fork(), short.em.fork()];
    for (const holder of holders) {
      await holder.begin();
      await holder.execute('select 1');
    }
    try {
      const { error, ms } = await failure(() => short.em.fork().execute('select 1'));
      console.log(`[db-deadlines] connect deadline ${SHORT.connectMs} ms: waiting for a pooled connection (both held) gave up after ${ms} ms`);
      expect(isDatabaseUnavailable(error)).toBe(true);
    } finally {
      for (const holder of holders) await holder.rollback();
    }
  });
});
