/**
 * The shared side of the request rate limit (auth/request-rate-limiter.ts; decision 0032): one
 * statement per reconciliation interval and gateway process — never one per request — that adds
 * what the process admitted since its last one to each shared bucket (refilled on the database's
 * clock, possibly below zero: the excess several processes admitted together is carried as debt)
 * and reads back every bucket any process changed since the last reconciliation.
 */
import { Inject, Injectable } from '@nestjs/common';
import type { MikroORM } from '@mikro-orm/postgresql';
import { ORM } from '@switchyard/service-kit';
import { tableNamer } from '@switchyard/persistence';

/** What one process admitted under `subject` since its last reconciliation, with the bucket's parameters. */
export interface RateConsumption {
  subject: string;
  consumed: number;
  ratePerSecond: number;
  burst: number;
}

/** A shared bucket as stored: its tokens `ageSeconds` ago (its refill since then is the reader's to add). */
export interface SharedBucket {
  subject: string;
  tokens: number;
  ageSeconds: number;
}

/**
 * Rows changed this long before the previous reconciliation are read again: a statement that
 * started before that reconciliation but committed after it is not missed (its refilled_at is its
 * start). Re-reading a row is harmless — it is the whole state, not a delta.
 */
const OVERLAP_SECONDS = 1;

@Injectable()
export class RequestRateRepository {
  private readonly t: (name: string) => string;

  constructor(@Inject(ORM) private readonly orm: MikroORM) {
    this.t = tableNamer(orm);
  }

  /**
   * Applies `consumed` and returns the buckets changed since `since` (a `now` this method returned
   * before; null: every bucket younger than `horizonSeconds`, past which any bucket is full again).
   */
  async reconcile(consumed: readonly RateConsumption[], since: Date | null, horizonSeconds: number): Promise<{ now: Date; buckets: SharedBucket[] }> {
    const table = this.t('request_rate_bucket');
    const available = `least(i.burst, b.tokens + greatest(0, extract(epoch from (statement_timestamp() - b.refilled_at))::float8) * i.rate)`;
    const rows = await this.orm.em.getConnection().execute<{ subject: string | null; tokens: number | null; age: number | null; now: Date }[]>(
      `with input as (
         select * from jsonb_to_recordset(?::jsonb) as x(subject text, consumed float8, rate float8, burst float8)
       ), up as (
         insert into ${table} as b (subject, tokens, refilled_at, last_allowed)
         select subject, burst - consumed, statement_timestamp(), true from input
         on conflict (subject) do update set
           tokens = (select ${available} - i.consumed from input i where i.subject = b.subject),
           refilled_at = greatest(b.refilled_at, statement_timestamp())
         returning subject, tokens, 0::float8 as age
       ), seen as (
         select subject, tokens, 0::float8 as age from up
         union all
         select subject, tokens, greatest(0, extract(epoch from (statement_timestamp() - refilled_at)))::float8
           from ${table}
          where refilled_at > greatest(coalesce(?::timestamptz - make_interval(secs => ?), '-infinity'), statement_timestamp() - make_interval(secs => ?))
            and subject not in (select subject from input)
       )
       select s.subject, s.tokens, s.age, statement_timestamp() as now from (select 1) one left join seen s on true`,
      [
        // One JSON parameter: the driver would expand a JS array into a list of parameters.
        JSON.stringify(consumed.map((c) => ({ subject: c.subject, consumed: c.consumed, rate: c.ratePerSecond, burst: c.burst }))),
        since,
        OVERLAP_SECONDS,
        horizonSeconds,
      ],
    );
    const now = rows[0]?.now ?? new Date();
    const buckets = rows.filter((r) => r.subject !== null).map((r) => ({ subject: r.subject as string, tokens: Number(r.tokens), ageSeconds: Number(r.age) }));
    return { now: new Date(now), buckets };
  }
}
