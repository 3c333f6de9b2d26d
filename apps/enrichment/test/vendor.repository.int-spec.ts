/**
 * The vendor budget and cache SQL (VendorRepository) on the real PostgreSQL: the token bucket hands
 * out `burst` requests at once, then answers how long until the next token (never sleeps), refills
 * at the rate, and is one bucket per account shared by every caller; the cache serves an answer
 * until it expires and never past it. Mutations tried: the token not taken (`tokens - 1` → `tokens`)
 * → the fourth request is granted; `expires_at > now()` dropped → the expired answer is served.
 */
import { describe, expect, it } from '@jest/globals';
import { inTransaction, query, tableNamer } from '@switchyard/persistence';
import { useMigratedSchema } from '@switchyard/testing/jest';
import { enrichmentMigrations } from '../src/db/migrations/index.js';
import { VendorRepository } from '../src/db/repositories/vendor.repository.js';

const db = useMigratedSchema('enrichment', enrichmentMigrations);
const repository = new VendorRepository();

describe('VendorRepository budget', () => {
  it('grants the burst at once, then tells the wait, then refills at the rate', async () => {
    const account = 'vendor-a';
    const waits = [];
    for (let i = 0; i < 4; i++) waits.push(await repository.take(db.orm, account, 2, 3));
    expect(waits.slice(0, 3)).toEqual([0, 0, 0]);
    expect(waits[3]).toBeGreaterThan(300);
    expect(waits[3]).toBeLessThanOrEqual(500);
    await new Promise((r) => setTimeout(r, 600));
    expect(await repository.take(db.orm, account, 2, 3)).toBe(0);
  });

  it('keeps one bucket per account, shared by concurrent callers', async () => {
    const results = await Promise.all(Array.from({ length: 10 }, () => repository.take(db.orm, 'vendor-b', 1, 4)));
    expect(results.filter((w) => w === 0)).toHaveLength(4);
    expect(await repository.take(db.orm, 'vendor-c', 1, 1)).toBe(0);
  });
});

describe('VendorRepository cache', () => {
  it('serves an answer until it expires', async () => {
    const em = db.em();
    await repository.remember(em, 'VIN00000000000001', { product: 'images', status: 'available', data: { images: [] }, adapter_version: 'v' }, new Date(), 60_000);
    await repository.remember(em, 'VIN00000000000001', { product: 'build', status: 'missing', data: null, adapter_version: 'v' }, new Date(), 60_000);
    expect((await repository.cached(em, 'VIN00000000000001', ['images', 'build', 'specifications'])).map((c) => [c.product, c.status]).sort()).toEqual([
      ['build', 'missing'],
      ['images', 'available'],
    ]);
    await inTransaction(db.orm, (tx) => query(tx, `update ${tableNamer(tx)('vendor_cache')} set expires_at = now() - interval '1 second' where product = 'build'`));
    expect((await repository.cached(em, 'VIN00000000000001', ['images', 'build'])).map((c) => c.product)).toEqual(['images']);
  });
});
