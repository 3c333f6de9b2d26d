/**
 * The read frame's page rule (db/read-frame.ts, `readFrame`) over items the application renders —
 * a report the domain's formulas compute, which PostgreSQL cannot render (the usage fleet page) —
 * so a context never writes its own byte-budget loop:
 * - at most `limit` items, and `hasMore` exactly when a row beyond the page remains;
 * - the same byte count: `[`, the items (UTF-8 bytes), their commas and `]` within `maxBytes`, the
 *   first item always, so a page is never empty while rows remain;
 * - the same result: the items as one JSON array text (sent as is in a framed reply), their count
 *   and the position of the last one.
 * A row is rendered only when the page may still take it (`rows` may hold `limit + 1` rows or all
 * that remain; the one past the limit is only looked at). The frame's int-spec holds both frames
 * to the same pages.
 */
import type { FramedPage } from './db/read-frame.js';

export function frameRendered<T, P>(rows: Iterable<T>, page: { limit: number; maxBytes: number }, item: { render: (row: T) => string; position: (row: T) => P }): FramedPage<P> {
  const texts: string[] = [];
  let bytes = 1; // "["
  let last: P | undefined;
  let hasMore = false;
  for (const row of rows) {
    if (texts.length === page.limit) {
      hasMore = true;
      break;
    }
    const text = item.render(row);
    bytes += Buffer.byteLength(text) + 1; // the item and the comma or "]" after it
    if (texts.length > 0 && bytes > page.maxBytes) {
      hasMore = true;
      break;
    }
    texts.push(text);
    last = item.position(row);
  }
  return { items: `[${texts.join(',')}]`, count: texts.length, hasMore, ...(last !== undefined ? { last } : {}) };
}
