/**
 * Retention of the gateway outbox (issue 14, item 4; PollingOutboxRelay.prune, hourly in the
 * relay's loop): rows published more than 7 days ago are deleted; younger published rows and
 * unpublished rows of any age stay. Mutation tried: `deletePublishedBefore` deleting every published
 * row (`published_at is not null`) — the young published row goes too.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { OUTBOX_RETENTION_MS } from '@switchyard/service-kit';
import { OutboxRelay } from '../src/index.js';
import { startTestGateway, type TestGateway } from './support.js';

const DAY = 86_400_000;
let gw: TestGateway;

beforeAll(async () => {
  gw = await startTestGateway();
});

afterAll(async () => {
  await gw?.close();
});

describe('outbox retention', () => {
  it('deletes rows published more than 7 days ago, keeps younger and unpublished ones', async () => {
    const relay = gw.service.app.get(OutboxRelay);
    // The relay prunes once at its first pass, then hourly: take that pass now, so the one below is the test's.
    await relay.prune();
    await new Promise((resolve) => setTimeout(resolve, 700));
    const em = gw.service.runtime.orm.em.fork();
    const table = `"${gw.schemas.gateway}"."outbox"`;
    const row = async (label: string, createdAgoMs: number, publishedAgoMs: number | null) => {
      // (An unpublished row with this payload fails the bus's schema check and stays unpublished.)
      const id = `retention-${label}-${randomUUID()}`;
      const created = new Date(Date.now() - createdAgoMs).toISOString();
      const published = publishedAgoMs === null ? null : new Date(Date.now() - publishedAgoMs).toISOString();
      await em.execute(`insert into ${table} (subject, msg_id, payload, created_at, published_at) values ('events.connection.config.x', ?, '{}'::jsonb, ?::timestamptz, ?::timestamptz)`, [id, created, published]);
      return id;
    };
    await row('old', 9 * DAY, 8 * DAY);
    const keep = [await row('young', 2 * DAY, 2 * DAY), await row('unpublished', 30 * DAY, null)];
    const pruned = await relay.prune();
    const left = (await em.execute<{ msg_id: string }[]>(`select msg_id from ${table} where msg_id like 'retention-%'`)).map((r) => r.msg_id);
    process.stdout.write(`[outbox-retention] pass pruned ${pruned} row(s) published more than ${OUTBOX_RETENTION_MS / DAY} days ago\n`);
    expect(pruned).toBe(1);
    expect(left.sort()).toEqual([...keep].sort());
  });
});
