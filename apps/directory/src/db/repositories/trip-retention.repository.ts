/**
 * The trip retention statement (services/trip-retention.service.ts, decision 0030). One statement
 * deletes at most `limit` trips that started before a time, skipping rows another pass holds. It
 * walks the connections that have trips with a loose index scan of `trip_window_idx`
 * (connection_id, started_at, id) — one index probe per connection, a recursive CTE since
 * PostgreSQL has no skip scan — and takes each connection's oldest trips through the same index,
 * so an hourly pass that finds nothing old reads a few index pages per connection, not the table.
 */
import { query, tableNamer, type Em } from '@switchyard/persistence';

export class TripRetentionRepository {
  /** Deletes at most `limit` trips with `started_at` before `before`; returns how many went. */
  async pruneStartedBefore(em: Em, before: Date, limit: number): Promise<number> {
    const trip = tableNamer(em)('trip');
    const [row] = await query<{ pruned: string }>(
      em,
      `with recursive connection as (
         (select connection_id from ${trip} order by connection_id limit 1)
         union all
         select (select t.connection_id from ${trip} t where t.connection_id > c.connection_id order by t.connection_id limit 1)
           from connection c where c.connection_id is not null
       ), doomed as (
         select old.id from connection c cross join lateral (
           select t.id from ${trip} t where t.connection_id = c.connection_id and t.started_at < ?
            order by t.started_at limit ? for update of t skip locked
         ) old
          where c.connection_id is not null
          limit ?
       ), gone as (
         delete from ${trip} t using doomed where t.id = doomed.id returning 1
       )
       select count(*)::text as pruned from gone`,
      [before.toISOString(), limit, limit],
    );
    return Number(row?.pruned ?? 0);
  }
}
