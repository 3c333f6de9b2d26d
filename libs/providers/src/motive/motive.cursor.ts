/**
 * The Motive adapter's opaque cursors: base64url JSON, safe to persist and resume from in another
 * process. Invariant: a cursor holds only positions (page number, vehicle and date-chunk index) and
 * the ids of the page just returned — never credentials or record data — and a cursor that does not
 * decode is refused as `provider_config_invalid` instead of silently restarting from page 1.
 */
import { z } from 'zod';
import { ProviderError } from '../errors.js';

/**
 * List endpoints: the date-slice index (driving periods are read in 30-day slices; 0 elsewhere), the
 * next `page_no`, plus the previous page's ids so an overlapping page (offset drift) is de-duplicated.
 */
const listCursor = z.object({ c: z.number().int().nonnegative().default(0), p: z.number().int().positive(), s: z.array(z.string()).max(200).default([]) });
export type ListCursor = z.output<typeof listCursor>;

/** v3 history: vehicle index into the query's vehicle list, date-chunk index, page. */
const historyCursor = z.object({ v: z.number().int().nonnegative(), c: z.number().int().nonnegative(), p: z.number().int().positive() });
export type HistoryCursor = z.output<typeof historyCursor>;

function decode<S extends z.ZodType>(schema: S, cursor: string): z.output<S> {
  try {
    return schema.parse(JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')));
  } catch {
    throw new ProviderError('provider_config_invalid', { message: 'unreadable motive cursor' });
  }
}

export const encodeCursor = (value: z.input<typeof listCursor> | HistoryCursor): string => Buffer.from(JSON.stringify(value)).toString('base64url');

export const decodeListCursor = (cursor: string | null | undefined): ListCursor => (cursor ? decode(listCursor, cursor) : { c: 0, p: 1, s: [] });

export const decodeHistoryCursor = (cursor: string | null | undefined): HistoryCursor => (cursor ? decode(historyCursor, cursor) : { v: 0, c: 0, p: 1 });
