/**
 * Validating what a provider sent against the adapter's own zod schema of that response. A
 * mismatch means the provider changed something we rely on: `provider_response_changed`, with the
 * first problem's path (never the payload, which may hold personal data).
 *
 * Pages are checked in two parts, by every adapter: the page's structure (envelope, pagination,
 * feed version) as a whole with `parseProviderResponse`, and its records one by one with
 * `parseRecords`. A record that fails its schema is reported as a `SkippedRecord` — the provider's id
 * when it has a readable one, the failing path and zod's message, never the value — and the rest
 * of the page is used. Only when every record of a non-empty page fails is it the provider changing
 * the response rather than one odd record: `provider_response_changed`, naming the first problem.
 */
import type { z } from 'zod';
import type { SkippedRecord } from '../adapter.js';
import { ProviderError } from '../errors.js';

export function parseProviderResponse<S extends z.ZodType>(schema: S, json: unknown, where: string): z.output<S> {
  const result = schema.safeParse(json);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  throw new ProviderError('provider_response_changed', { path: where, message: issue ? `${issue.path.join('.') || '(root)'}: ${issue.message}` : 'invalid' });
}

/** The records of one page that passed their schema, those that did not, and how many were read. */
export interface ParsedRecords<T> {
  readonly data: T[];
  readonly skipped: SkippedRecord[];
  /** Records on the page, valid or not: "was the page full" is decided on this, never on `data`. */
  readonly read: number;
}

export interface RecordsWhere {
  /** The endpoint or method, as in `ProviderError.detail.path` (`/fleet/vehicles`, `geotab:Get:Trip`). */
  readonly path: string;
  /** Where the records sit in the body (`data`, `vehicles`); '' for a bare array. */
  readonly prefix: string;
  /** The provider's id of a raw record; `idAt()` (the record's `id`) when not given. */
  readonly idOf?: (raw: unknown) => string | null;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Reads an id at `keys` of a raw record: `idAt()` → `raw.id`, `idAt('vehicle')` → `raw.vehicle.id`,
 * `idAt('device')` → `raw.device` when Geotab sends a bare-string reference, else `raw.device.id`.
 * Non-empty strings and finite numbers count; anything else is "no readable id" (null).
 */
export function idAt(...keys: string[]): (raw: unknown) => string | null {
  return (raw) => {
    let value: unknown = raw;
    for (const key of keys) value = isObject(value) ? value[key] : undefined;
    if (isObject(value)) value = value['id'];
    return (typeof value === 'string' && value !== '') || (typeof value === 'number' && Number.isFinite(value)) ? String(value) : null;
  };
}

/** `records` checked one by one against `item`, without the all-fail rule; `first` is the first problem. */
function validateRecords<S extends z.ZodType>(item: S, records: readonly unknown[], where: RecordsWhere): ParsedRecords<z.output<S>> & { first?: string } {
  const idOf = where.idOf ?? idAt();
  const data: z.output<S>[] = [];
  const skipped: SkippedRecord[] = [];
  let first: string | undefined;
  records.forEach((raw, i) => {
    const parsed = item.safeParse(raw);
    if (parsed.success) {
      data.push(parsed.data);
      return;
    }
    const issue = parsed.error.issues[0];
    const at = [where.prefix, String(i), ...(issue?.path ?? []).map(String)].filter((p) => p !== '').join('.');
    const problem = `${at}: ${issue?.message ?? 'invalid'}`;
    first ??= problem;
    skipped.push({ sourceId: idOf(raw), reason: `${where.path} ${problem}` });
  });
  return { data, skipped, read: records.length, ...(first !== undefined ? { first } : {}) };
}

/** Validates `records` one by one against `item` (see the header). */
export function parseRecords<S extends z.ZodType>(item: S, records: readonly unknown[], where: RecordsWhere): ParsedRecords<z.output<S>> {
  const { first, ...parsed } = validateRecords(item, records, where);
  if (parsed.read > 0 && parsed.data.length === 0) throw new ProviderError('provider_response_changed', { path: where.path, message: first });
  return parsed;
}

/**
 * The records of a page assembled from several results (Geotab's ExecuteMultiCall: one call per
 * device and diagnostic). Each result is validated record by record; the all-fail rule applies per
 * record type (`where.path`) over the whole page, in `settle`, so one device's single malformed
 * reading is skipped instead of being taken for a response change.
 */
export class PageRecords {
  readonly skipped: SkippedRecord[] = [];
  private readonly tally = new Map<string, { read: number; valid: number; first?: string }>();

  parse<S extends z.ZodType>(item: S, records: readonly unknown[], where: RecordsWhere): ParsedRecords<z.output<S>> {
    const { first, ...parsed } = validateRecords(item, records, where);
    const t = this.tally.get(where.path) ?? { read: 0, valid: 0 };
    this.tally.set(where.path, { read: t.read + parsed.read, valid: t.valid + parsed.data.length, first: t.first ?? first });
    this.skipped.push(...parsed.skipped);
    return parsed;
  }

  /** Throws `provider_response_changed` for a record type of which the page read some and none was valid. */
  settle(): void {
    for (const [path, t] of this.tally) if (t.read > 0 && t.valid === 0) throw new ProviderError('provider_response_changed', { path, message: t.first });
  }
}
