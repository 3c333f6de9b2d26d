/**
 * A framed read reply (libs/messaging framed-reply.ts) opened for assertions: its `meta` members
 * with the body's JSON array parsed under `key` — the shape the replies had before their bodies
 * travelled as JSON text, so the suites keep their assertions.
 */
import type { JsonText } from '@switchyard/messaging';

export function openFramed<Item, K extends string, M extends object>(reply: { meta: M; body: JsonText }, key: K): M & Record<K, Item[]> {
  const text = typeof reply.body === 'string' ? reply.body : Buffer.from(reply.body).toString('utf8');
  return { ...reply.meta, [key]: JSON.parse(text) as Item[] } as M & Record<K, Item[]>;
}
