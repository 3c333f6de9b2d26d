/**
 * The one pager (stored-read-pager.ts) keeps every route's cursor format: a token the route's
 * former hand-written codec issued (before the pager took the route over) still decodes to the
 * same walk, and the pager's `next` decodes with that codec — for `{h, p}` (directory lists,
 * locations), `{p}` (fleet utilization) and `{s}` (open faults).
 * Mutations tried: the cursor shape ignored (always `{h, p}`) → the `{p}` and `{s}` cases fail;
 * `next` issued without `hasMore` → the last-page case fails; `expand` always sent → the frame case
 * fails.
 */
import { describe, expect, it } from '@jest/globals';
import { FAULTS_PAGE, FLEET_UTILIZATION_PAGE, LOCATIONS_PAGE, PAGE_RANGES, vehicleIdSchema } from '@switchyard/contracts';
import { vehicleId } from '@switchyard/domain';
import { faultSequencePositionV1, readHorizonV1 } from '@switchyard/messaging';
import { z } from 'zod';
import type { ConsumerPrincipal } from '../auth/principal.js';
import { ApiError } from '../http/api-error.js';
import { ReadCursorCodec } from './read-cursor.js';
import { StoredReadPager, type PageFrame } from './stored-read-pager.js';

const principal: ConsumerPrincipal = { kind: 'consumer', consumerKeyId: 'k1', connectionId: '22222222-2222-4222-8222-222222222222', permissions: ['read'], credentialVersion: 2, accessEpoch: 1 };
const settings = { cursorSecret: 'x'.repeat(43), responseByteLimit: 4 * 1024 * 1024 };
const v = (s: string) => vehicleId({ connectionId: principal.connectionId, provider: 'samsara', sourceId: s });
const horizon = '1700000000000000:42:';
const filters = { startTime: '2026-11-01T00:00:00.000Z', endTime: '2026-11-02T00:00:00.000Z' };

/** Runs one page with a context that records the frame and answers `meta`. */
async function onePage<P, E extends string>(pager: StoredReadPager<P, E>, query: { cursor?: string; limit?: string; expand?: string }, meta: { horizon?: string; hasMore: boolean; next?: P }, f: object = {}) {
  let sent: PageFrame<P, E> | undefined;
  const { link } = await pager.page(principal, query, f, async (frame) => {
    sent = frame;
    return { meta, body: '[]' };
  });
  return { sent, link };
}

describe('StoredReadPager keeps each route cursor format', () => {
  it('{h, p}: a snapshot walk (locations)', async () => {
    const route = 'GET /v1/connections/{id}/locations';
    const former = new ReadCursorCodec(settings.cursorSecret, route, z.object({ h: readHorizonV1, p: vehicleIdSchema }).strict());
    const pager = new StoredReadPager(settings, { route, position: vehicleIdSchema, range: LOCATIONS_PAGE });
    const { sent, link } = await onePage(pager, { cursor: former.encode(principal, {}, { h: horizon, p: v('a') }) }, { horizon, hasMore: true, next: v('b') });
    expect(sent).toEqual({ limit: LOCATIONS_PAGE.default, maxBytes: expect.any(Number), horizon, after: v('a') });
    expect(former.decode(principal, {}, link.next ?? '')).toEqual({ h: horizon, p: v('b') });
  });

  it('{p}: a walk without a snapshot, bound to its filters (fleet utilization)', async () => {
    const route = 'GET /v1/connections/{id}/utilization';
    const former = new ReadCursorCodec(settings.cursorSecret, route, z.object({ p: vehicleIdSchema }).strict());
    const pager = new StoredReadPager(settings, { route, position: vehicleIdSchema, range: FLEET_UTILIZATION_PAGE, cursor: { horizon: false, key: 'p' } });
    const { sent, link } = await onePage(pager, { cursor: former.encode(principal, filters, { p: v('a') }), limit: '7' }, { hasMore: true, next: v('c') }, filters);
    expect(sent).toEqual({ limit: 7, maxBytes: expect.any(Number), after: v('a') });
    expect(former.decode(principal, filters, link.next ?? '')).toEqual({ p: v('c') });
    await expect(onePage(pager, { cursor: link.next ?? '' }, { hasMore: false }, { ...filters, endTime: '2026-11-03T00:00:00.000Z' })).rejects.toThrow(new ApiError('invalid_cursor'));
  });

  it('{s}: the open-fault sequence', async () => {
    const route = 'GET /v1/connections/{id}/faults';
    const former = new ReadCursorCodec(settings.cursorSecret, route, z.object({ s: faultSequencePositionV1 }).strict());
    const pager = new StoredReadPager(settings, { route, position: faultSequencePositionV1, range: FAULTS_PAGE, cursor: { horizon: false, key: 's' } });
    const { sent, link } = await onePage(pager, { cursor: former.encode(principal, {}, { s: '17' }) }, { hasMore: true, next: '40' });
    expect(sent).toMatchObject({ after: '17' });
    expect(sent).not.toHaveProperty('horizon');
    expect(former.decode(principal, {}, link.next ?? '')).toEqual({ s: '40' });
    // A snapshot cursor of the same route is not this format.
    const other = new ReadCursorCodec(settings.cursorSecret, route, z.object({ h: readHorizonV1, p: z.string() }).strict());
    await expect(onePage(pager, { cursor: other.encode(principal, {}, { h: horizon, p: '17' }) }, { hasMore: false })).rejects.toThrow(new ApiError('invalid_cursor'));
  });
});

describe('StoredReadPager frame and link', () => {
  it('sends expand only on a route that has expandable references, and no next on the last page', async () => {
    const pager = new StoredReadPager(settings, { route: 'GET /x', position: z.string(), range: PAGE_RANGES.drivers, expandable: ['groups'] as const });
    const first = await onePage(pager, { expand: 'groups' }, { horizon, hasMore: false, next: 'd' });
    expect(first.sent).toEqual({ limit: PAGE_RANGES.drivers.default, maxBytes: expect.any(Number), expand: { groups: true } });
    expect(first.link).toEqual({});
    const plain = new StoredReadPager(settings, { route: 'GET /y', position: z.string(), range: PAGE_RANGES.drivers });
    expect((await onePage(plain, {}, { horizon, hasMore: true, next: 'd' })).sent).not.toHaveProperty('expand');
  });

  it('refuses a bad limit naming it, before the cursor is looked at', async () => {
    const pager = new StoredReadPager(settings, { route: 'GET /y', position: z.string(), range: LOCATIONS_PAGE });
    for (const [limit, reason] of [
      ['0', 'out_of_range'],
      ['1000', 'out_of_range'],
      ['ten', 'malformed'],
    ] as const) {
      const refused = await onePage(pager, { limit, cursor: 'garbage' }, { horizon, hasMore: false }).catch((e: unknown) => e);
      expect(refused).toBeInstanceOf(ApiError);
      expect({ code: (refused as ApiError).code, detail: (refused as ApiError).detail }).toEqual({ code: 'invalid_query', detail: { in: 'query', name: 'limit', reason } });
    }
  });
});
