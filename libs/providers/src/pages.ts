/**
 * Reads a paged listing to its end by following `next`. Bounded: a cursor that never ends is a
 * provider (or adapter) bug, reported as an error instead of looping forever.
 */
import type { Page } from './adapter.js';

export async function collectPages<T>(
  fetchPage: (cursor: string | null) => Promise<Page<T>>,
  maxPages: number,
): Promise<{ items: T[]; pages: number }> {
  const items: T[] = [];
  let cursor: string | null = null;
  let pages = 0;
  do {
    const page = await fetchPage(cursor);
    items.push(...page.items);
    cursor = page.next;
    pages++;
    if (pages > maxPages) throw new Error('pagination does not end');
  } while (cursor !== null);
  return { items, pages };
}
