/**
 * The page filling every stored list read shares (trips, vehicles, drivers, groups): rows are
 * fetched in keyset order in chunks of limit + 1; each chunk is turned into items (undefined = not shown, e.g. a hidden vehicle) and the page takes items until it
 * holds `limit` of them or the next one would push the serialized `results` array over `maxBytes`
 * (then `hasMore`, and `next` is the position of the last item served). The first item is always
 * taken, so a page never comes back empty while rows remain. Positions advance over skipped rows
 * too, so a chunk of hidden rows never stalls the walk.
 * Also here: the page status of resources whose status enum has no `stale` (old data is
 * `available`; publishedAt tells its age), the status of a single stored row, and the one-query
 * loading of the groups a page's rows expand.
 */
import type { DatasetStatusV1 } from '@switchyard/messaging';

export const pageStatus = (s: DatasetStatusV1): DatasetStatusV1 => (s.status === 'stale' ? { ...s, status: 'available' } : s);

/** The status of one stored row read by id: never `pending` — a stored row means a committed batch. */
export const resultStatus = (s: DatasetStatusV1): DatasetStatusV1 => (s.status === 'pending' ? { ...s, status: 'available' } : s);

/**
 * The referenced rows of a page (e.g. the groups its drivers or vehicles belong to) by id: the
 * distinct ids loaded in one query, each mapped; a row the mapper rejects is left out.
 */
export async function expansionById<Row, Item extends { id: string }>(ids: readonly string[], load: (ids: string[]) => Promise<Row[]>, map: (row: Row) => Item | undefined): Promise<Map<string, Item>> {
  const expanded = new Map<string, Item>();
  for (const row of await load([...new Set(ids)])) {
    const item = map(row);
    if (item) expanded.set(item.id, item);
  }
  return expanded;
}

export interface FilledPage<Item, Position> {
  items: Item[];
  /** The items as the JSON array text their byte count was taken from (sent as is in a framed reply). */
  json: string;
  hasMore: boolean;
  /** Position of the last item served; set exactly when hasMore. */
  next?: Position;
}

export async function fillPage<Row, Item, Position>(options: {
  limit: number;
  maxBytes: number;
  after: Position | undefined;
  fetch: (after: Position | undefined, limit: number) => Promise<Row[]>;
  position: (row: Row) => Position;
  /** The chunk's items in row order; undefined for a row that is not shown. */
  items: (rows: Row[]) => Promise<(Item | undefined)[]> | (Item | undefined)[];
}): Promise<FilledPage<Item, Position>> {
  const { limit, maxBytes } = options;
  const items: Item[] = [];
  const texts: string[] = [];
  let bytes = 2; // "[" and "]"
  let after = options.after;
  let next: Position | undefined;
  const filled = (hasMore: boolean): FilledPage<Item, Position> => ({ items, json: `[${texts.join(',')}]`, hasMore, ...(hasMore ? { next } : {}) });
  for (;;) {
    const rows = await options.fetch(after, limit + 1);
    const chunk = await options.items(rows);
    for (const [i, row] of rows.entries()) {
      const position = options.position(row);
      after = position;
      const item = chunk[i];
      if (item === undefined) continue;
      const text = JSON.stringify(item);
      const size = Buffer.byteLength(text) + (items.length > 0 ? 1 : 0);
      if (items.length === limit || (items.length > 0 && bytes + size > maxBytes)) return filled(true);
      items.push(item);
      texts.push(text);
      bytes += size;
      next = position;
    }
    if (rows.length <= limit) return filled(false);
  }
}
