/**
 * Wire values → normalized `Field`s and unit modes, shared by the Motive mappers. Invariant: a value
 * that is absent, null, empty or retyped never becomes a value — it is `missing` or `invalid` with a
 * reason naming the wire field, so "unknown" can never be read as zero or "".
 */
import { available, invalid, isRfc3339DateTime, missing, VEHICLE_METADATA_BOUNDS, type Field } from '@switchyard/domain';
import type { Wire } from './motive.schemas.js';

/**
 * Motive's unit system for location readings. We send `X-Metric-Units: true` on every request, so
 * location odometers and speeds are read as km and km/h. The embedded vehicles' `metric_units` is a
 * per-vehicle display preference, not a response unit signal (a live capture has every vehicle at
 * `false` with kilometre odometers), so it never switches the mode.
 */
export type UnitsMode = 'metric' | 'imperial';

export function retypedReason(field: string, w: { got: string }): string {
  return `${field}: retyped (got ${w.got})`;
}

/** A text field: empty or whitespace-only strings are missing (Motive sends `"make": ""`), over 1024 chars invalid. */
export function textField(w: Wire<string>, source: string, field: string): Field<string> {
  if (w.kind === 'absent') return missing(source, `${field}: not reported`);
  if (w.kind === 'retyped') return invalid(source, retypedReason(field, w));
  const value = w.value.trim();
  if (value === '') return missing(source, `${field}: empty`);
  if (value.length > VEHICLE_METADATA_BOUNDS.stringMax) return invalid(source, `${field}: longer than ${VEHICLE_METADATA_BOUNDS.stringMax}`);
  return available(value, source);
}

/** Canonical UTC-with-milliseconds form of a Motive timestamp (some carry microseconds), or undefined. */
export function normalizeTime(raw: string): string | undefined {
  if (!isRfc3339DateTime(raw)) return undefined;
  const ms = Date.parse(raw);
  return Number.isNaN(ms) ? undefined : new Date(ms).toISOString();
}

export function timeField(w: Wire<string>, source: string, field: string): Field<string> {
  if (w.kind === 'absent') return missing(source, `${field}: not reported`);
  if (w.kind === 'retyped') return invalid(source, retypedReason(field, w));
  const normalized = normalizeTime(w.value);
  return normalized ? available(normalized, source) : invalid(source, `${field}: not an RFC 3339 date-time`);
}

/**
 * `year` is a string on the wire ("2019"); 1886..2200 per spec 2.3. `"0"` is Motive's "not entered"
 * (a live capture has it beside empty make/model), so it is missing, not an invalid year.
 */
export function yearField(w: Wire<string>, source: string): Field<number> {
  if (w.kind === 'absent') return missing(source, 'year: not reported');
  if (w.kind === 'retyped') return invalid(source, retypedReason('year', w));
  const trimmed = w.value.trim();
  if (trimmed === '') return missing(source, 'year: empty');
  if (trimmed === '0') return missing(source, 'year: "0" (not entered)');
  if (!/^\d{4}$/.test(trimmed)) return invalid(source, 'year: not a four-digit year');
  const year = Number(trimmed);
  const { yearMin, yearMax } = VEHICLE_METADATA_BOUNDS;
  return year >= yearMin && year <= yearMax ? available(year, source) : invalid(source, `year: outside ${yearMin}..${yearMax}`);
}

/** Motive `status` (`active` / `deactivated`; the second value is unconfirmed, so `inactive` is accepted too). */
export function statusField(w: Wire<string>, source: string): Field<'active' | 'inactive'> {
  if (w.kind === 'absent') return missing(source, 'status: not reported');
  if (w.kind === 'retyped') return invalid(source, retypedReason('status', w));
  const s = w.value.trim().toLowerCase();
  if (s === 'active') return available('active', source);
  if (s === 'deactivated' || s === 'inactive') return available('inactive', source);
  return invalid(source, `status: unknown value ${JSON.stringify(w.value.slice(0, 32))}`);
}

/** The value of a numeric wire field for the unit converters (which turn undefined into missing). */
export function rawNumber(w: Wire<number>): unknown {
  if (w.kind === 'value') return w.value;
  if (w.kind === 'retyped') return `retyped:${w.got}`; // a non-number: the converters answer invalid/not_a_number
  return undefined;
}

/** `true_*` when it is a number, else the plain field (motive.md §5.2: the corrected reading is recommended). */
export function preferTrue(trueField: Wire<number>, plainField: Wire<number>, trueName: string, plainName: string): { w: Wire<number>; name: string } {
  return trueField.kind === 'value' ? { w: trueField, name: trueName } : { w: plainField, name: plainName };
}
