/**
 * The vendor's cache and request budget (migration 0001).
 * - cache: one answer per VIN and product (available, missing or blocked — a failure is never
 *   cached), reused by every vehicle with that VIN until `expires_at`;
 * - budget: a token bucket per vendor account in one row, refilled at `ratePerSecond` up to `burst`
 *   and taken under the row lock, so every enrichment process shares one budget (the collection
 *   budget's model). `take` never sleeps: it answers how long until a token is there, and the
 *   worker puts its rows back for that long — no read or consumer ever waits on it.
 */
import type { EnrichmentProduct } from '@switchyard/messaging';
import { inTransaction, isoSql, query, tableNamer, type Em, type Orm } from '@switchyard/persistence';

export interface CachedAnswer {
  product: EnrichmentProduct;
  status: 'available' | 'missing' | 'blocked';
  data: unknown;
  adapter_version: string;
  fetched_at: string;
}

export class VendorRepository {
  async cached(em: Em, vin: string, products: readonly EnrichmentProduct[]): Promise<CachedAnswer[]> {
    return query<CachedAnswer>(
      em,
      `select product, status, data, adapter_version, ${isoSql('fetched_at')} as fetched_at from ${tableNamer(em)('vendor_cache')}
        where vin = ? and product = any(?::text[]) and expires_at > now()`,
      [vin, `{${products.join(',')}}`],
    );
  }

  async remember(em: Em, vin: string, answer: Omit<CachedAnswer, 'fetched_at'>, fetchedAt: Date, ttlMs: number): Promise<void> {
    await query(
      em,
      `insert into ${tableNamer(em)('vendor_cache')} (vin, product, status, data, adapter_version, fetched_at, expires_at)
       values (?, ?, ?, ?::jsonb, ?, ?::timestamptz, ?::timestamptz + (? * interval '1 millisecond'))
       on conflict (vin, product) do update set status = excluded.status, data = excluded.data, adapter_version = excluded.adapter_version,
         fetched_at = excluded.fetched_at, expires_at = excluded.expires_at`,
      [vin, answer.product, answer.status, answer.data === null ? null : JSON.stringify(answer.data), answer.adapter_version, fetchedAt.toISOString(), fetchedAt.toISOString(), ttlMs],
    );
  }

  /** Takes one request token of `account`; 0 when taken, else the milliseconds until one is there. */
  take(orm: Orm, account: string, ratePerSecond: number, burst: number): Promise<number> {
    return inTransaction(orm, async (em) => {
      const t = tableNamer(em)('vendor_budget');
      await query(em, `insert into ${t} (account, tokens, refilled_at) values (?, ?, now()) on conflict (account) do nothing`, [account, burst]);
      const [row] = await query<{ tokens: number; elapsed_ms: number }>(
        em,
        `select tokens, extract(epoch from (clock_timestamp() - refilled_at)) * 1000 as elapsed_ms from ${t} where account = ? for update`,
        [account],
      );
      const tokens = Math.min(burst, (row?.tokens ?? burst) + (Math.max(0, Number(row?.elapsed_ms ?? 0)) / 1_000) * ratePerSecond);
      const taken = tokens >= 1;
      await query(em, `update ${t} set tokens = ?, refilled_at = clock_timestamp() where account = ?`, [taken ? tokens - 1 : tokens, account]);
      return taken ? 0 : Math.ceil(((1 - tokens) / ratePerSecond) * 1_000);
    });
  }
}
