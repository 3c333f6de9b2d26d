/**
 * The stored-read frame every context's paged read runs through (issue 24 item 1; decision 0010):
 * one SQL statement takes the keyset rows the caller selects — each already rendered by PostgreSQL
 * as the public item's JSON text — and decides the page in the database:
 * - at most `limit` items, and `limit + 1` rows fetched to know whether more follow;
 * - the byte budget from the items' lengths: items are taken while `[` + items + commas + `]`
 *   stays within `maxBytes` (the rule the copies it replaces had: `Buffer.byteLength` of each
 *   serialized item plus one comma) — the first item always, so a page is never empty while rows
 *   remain;
 * - the JSON array text of the items taken, the position of the last one, and `hasMore`.
 * Rows the reader must not show (hidden vehicles, values outside the public shape) are left out by
 * the caller's WHERE, so a walk never stalls on them and no chunk loop is needed — or, for a feed
 * whose position must pass them, selected with `shown = false` (`passesHidden`).
 * The statement runs prepared (persistence readQuery, decision 0036): planned once per pooled
 * connection, not on every page.
 * Numbering: `row_number() over ()` over the caller's ordered, limited subquery keeps its order
 * (PostgreSQL hands a subquery's sorted rows to the window unchanged; the frame's int-spec walks
 * pages in order to hold it to that).
 */
import { readQuery, type Em } from '@switchyard/persistence';

/** What a reader selects: `body` (json: the public item) and `position` (json: its keyset position), ordered, without `limit`. */
export interface FrameRows {
  sql: string;
  params: readonly unknown[];
  /**
   * The rows also select `shown` (boolean): a row not shown still counts against `limit` and moves
   * the position past it, but is not served (the fault feed passes hidden vehicles' transitions, so
   * a durable cursor never serves them later). Without it every row selected is served.
   */
  passesHidden?: boolean;
}

export interface FramedPage<P> {
  /** The items served, as one JSON array text (`[]` when none). */
  items: string;
  count: number;
  /** More rows follow the last item served (the limit or the byte budget ended the page). */
  hasMore: boolean;
  /** Position of the last row taken (served, or passed when hidden); absent when none was. */
  last?: P;
}

/** Microsecond RFC 3339 text of a timestamp column: a keyset position must not lose precision (isoSql keeps milliseconds). */
export const positionTimeSql = (column: string) => `to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;

/** The one statement of a frame page (`?` placeholders, params in order): what `readFrame` runs, for a caller that runs it elsewhere (the bench baselines). */
export function frameSql(rows: FrameRows, page: { limit: number; maxBytes: number }): { sql: string; params: unknown[] } {
  return {
    sql: `with r as (select body::text as body, position, ${rows.passesHidden ? 'shown' : 'true'} as shown, row_number() over () as n from (${rows.sql} limit ?) q),
          s as (select body, position, shown, n, 1 + sum(case when shown then octet_length(body) + 1 else 0 end) over (order by n) as bytes from r),
          t as (select body, position, shown, n, n = 1 or (n <= ? and bytes <= ?) as taken from s)
     select '[' || string_agg(body, ',' order by n) filter (where taken and shown) || ']' as items,
            count(*) filter (where taken and shown)::int as count,
            bool_or(not taken) as has_more,
            (array_agg(position order by n desc) filter (where taken))[1] as last
       from t`,
    params: [...rows.params, page.limit + 1, page.limit, page.maxBytes],
  };
}

/** The frame page of the row `frameSql`'s statement returns. */
export function framedPageOf<P>(row: { items: string | null; count: number; has_more: boolean | null; last: P | null } | undefined): FramedPage<P> {
  return { items: row?.items ?? '[]', count: row?.count ?? 0, hasMore: row?.has_more ?? false, ...(row?.last ? { last: row.last } : {}) };
}

/** One page of `rows` within `limit` items and `maxBytes` bytes of JSON array text, decided in one statement. */
export async function readFrame<P>(em: Em, rows: FrameRows, page: { limit: number; maxBytes: number }): Promise<FramedPage<P>> {
  const { sql, params } = frameSql(rows, page);
  const [row] = await readQuery<{ items: string | null; count: number; has_more: boolean | null; last: P | null }>(em, sql, params);
  return framedPageOf(row);
}
