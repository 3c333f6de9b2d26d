/**
 * Samsara dialect plumbing for the simulator's routes: the `{message, requestId}` error body, query
 * parameter parsing with Samsara's 400s, and cursor pagination (`after`, `limit` ≤ 512,
 * `{endCursor, hasNextPage}` with `""` at the end) with the `duplicate_and_reorder` scenario applied
 * through the kit helper. Invariant: a page is a pure function of (account, path, query, clock), so
 * a retried request answers identically.
 */
import { randomUUID } from 'node:crypto';
import { findScenario, pageWithScenario } from '../common/duplicate-reorder.js';
import type { SimContext, SimErrorKind, SimRequest, SimResponse } from '../common/sim-kit.types.js';
import { decodeSimCursor, encodeSimCursor } from './samsara-ids.js';

const STATUS: Record<SimErrorKind, number> = { unauthorized: 401, forbidden: 403, rate_limited: 429, server_error: 500, not_found: 404, bad_request: 400 };
const MESSAGE: Record<SimErrorKind, string> = {
  unauthorized: 'Unauthorized: invalid or revoked API token',
  forbidden: 'Forbidden: the API token lacks the permission this endpoint requires',
  rate_limited: 'Too Many Requests: rate limit exceeded',
  server_error: 'Internal Server Error',
  not_found: 'Not Found',
  bad_request: 'Bad Request',
};

export function samsaraError(kind: SimErrorKind, extra?: { retryAfterSeconds?: number; message?: string }): SimResponse {
  const headers: Record<string, string> = {};
  if (kind === 'rate_limited' && extra?.retryAfterSeconds !== undefined) headers['retry-after'] = String(extra.retryAfterSeconds);
  return { status: STATUS[kind], headers, body: { message: extra?.message ?? MESSAGE[kind], requestId: randomUUID() } };
}

export const badRequest = (message: string): SimResponse => samsaraError('bad_request', { message });
export const ok = (body: unknown): SimResponse => ({ status: 200, body });

/** Thrown inside a route for a 4xx; the dispatcher turns it into the error response. */
export class SamsaraRequestError extends Error {
  constructor(readonly response: SimResponse) {
    super('samsara request error');
  }
}

const fail = (message: string): never => {
  throw new SamsaraRequestError(badRequest(message));
};

/** RFC 3339 query time (Samsara accepts offsets and milliseconds). */
export function timeParam(req: SimRequest, name: string, required: true): number;
export function timeParam(req: SimRequest, name: string, required: false): number | undefined;
export function timeParam(req: SimRequest, name: string, required: boolean): number | undefined {
  const raw = req.query.get(name);
  if (raw === null || raw === '') return required ? fail(`${name} is required`) : undefined;
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/i.test(raw) || Number.isNaN(Date.parse(raw))) return fail(`${name} must be an RFC 3339 date-time`);
  return Date.parse(raw);
}

export function intParam(req: SimRequest, name: string): number | undefined {
  const raw = req.query.get(name);
  if (raw === null || raw === '') return undefined;
  if (!/^-?\d+$/.test(raw) || !Number.isSafeInteger(Number(raw))) return fail(`${name} must be an integer`);
  return Number(raw);
}

export function csvParam(req: SimRequest, name: string): string[] | undefined {
  const raw = req.query.get(name);
  if (raw === null || raw === '') return undefined;
  return raw.split(',').map((s) => s.trim()).filter(Boolean);
}

export function enumParam<T extends string>(req: SimRequest, name: string, values: readonly T[], fallback: T): T {
  const raw = req.query.get(name);
  if (raw === null || raw === '') return fallback;
  return (values as readonly string[]).includes(raw) ? (raw as T) : fail(`${name} must be one of ${values.join(', ')}`);
}

/** Samsara's `limit`: 1..512 (default 512), further capped by the simulator's own page size. */
export function limitParam(req: SimRequest, serverMax: number): number {
  const limit = intParam(req, 'limit') ?? 512;
  if (limit < 1 || limit > 512) fail('limit must be between 1 and 512');
  return Math.min(limit, serverMax);
}

export interface PageOf<T> {
  readonly records: T[];
  readonly pagination: { endCursor: string; hasNextPage: boolean };
}

/**
 * One offset page of `all` for this endpoint. The cursor names the path, so a vehicles cursor sent to
 * /tags is a 400 like Samsara's "invalid cursor". `duplicate_and_reorder` repeats the previous page's
 * tail and shuffles, seeded by account + path + offset.
 */
export function paginate<T>(req: SimRequest, ctx: SimContext, all: readonly T[], size: number): PageOf<T> {
  const decoded = decodeSimCursor(req.query.get('after'), req.path, 1);
  if (decoded === 'bad') fail('Invalid value for parameter after: not a cursor of this endpoint');
  const offset = decoded === undefined || decoded === 'bad' ? 0 : (decoded[0] as number);
  const scenario = findScenario(ctx.scenarios(), 'duplicate_and_reorder');
  const records = pageWithScenario(all, offset, size, scenario, `${ctx.account}:${req.path}:${offset}`);
  const hasNextPage = offset + size < all.length;
  return { records, pagination: { endCursor: hasNextPage ? encodeSimCursor(req.path, offset + size) : '', hasNextPage } };
}
