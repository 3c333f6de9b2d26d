/**
 * fast-check arbitraries generated from the JSON schemas of the committed OpenAPI document (the
 * contract fuzzer, contract-fuzz.int-spec.ts): values that satisfy a parameter's or a body's
 * schema, and values that violate it, each with the reason it violates. Only the schema is read
 * (type, enum, minimum/maximum, exclusiveMinimum, pattern, format date-time, items, minItems,
 * properties, required, additionalProperties, $ref), so a parameter added to the document is
 * generated without new code. What a schema cannot say (a window limit, a parameter required
 * with another) is the caller's to add.
 */
import fc from 'fast-check';
import { openApiDocument, type OpenApiSchema } from './openapi-operations.js';

/** The schema with `$ref`s (into this document) followed. */
export function resolveSchema(schema: OpenApiSchema | undefined): OpenApiSchema {
  let current = schema ?? {};
  for (let hops = 0; current.$ref !== undefined && hops < 20; hops++) {
    const steps = current.$ref.replace(/^#\//, '').split('/');
    current = (steps.reduce<unknown>((node, step) => (node as Record<string, unknown> | undefined)?.[step], openApiDocument) as OpenApiSchema | undefined) ?? {};
  }
  return current;
}

const typeOf = (schema: OpenApiSchema): string | undefined => (Array.isArray(schema.type) ? schema.type.find((t) => t !== 'null') : schema.type);

/** An instant as RFC 3339: `Z` or a numeric offset (the same instant), with or without milliseconds. */
export function rfc3339(ms: number, offsetMinutes = 0, millis = true): string {
  const local = new Date(ms + offsetMinutes * 60_000).toISOString();
  const base = millis ? local.slice(0, 23) : local.slice(0, 19);
  if (offsetMinutes === 0) return `${base}Z`;
  const abs = Math.abs(offsetMinutes);
  return `${base}${offsetMinutes < 0 ? '-' : '+'}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`;
}

/** Whole seconds (so dropping the milliseconds never moves the instant) between `fromMs` and `toMs`, in RFC 3339 with a random offset. */
export function instantArbitrary(fromMs: number, toMs: number): fc.Arbitrary<string> {
  return fc
    .record({ s: fc.integer({ min: Math.ceil(fromMs / 1000), max: Math.floor(toMs / 1000) }), offset: fc.constantFrom(0, 0, 0, 60, 120, -300, 330, 345, -570, 840, -720), millis: fc.boolean() })
    .map(({ s, offset, millis }) => rfc3339(s * 1000, offset, millis));
}

export interface ValueOptions {
  /** The range of generated date-times (default: the last 30 days). */
  dates?: { fromMs: number; toMs: number };
}

/** Values satisfying `schema`. */
export function validValue(schema0: OpenApiSchema | undefined, options: ValueOptions = {}): fc.Arbitrary<unknown> {
  const schema = resolveSchema(schema0);
  if (schema.enum) return fc.constantFrom(...schema.enum);
  const dates = options.dates ?? { fromMs: Date.now() - 30 * 86_400_000, toMs: Date.now() };
  const type = typeOf(schema);
  if (type === 'integer') {
    const exclusive = typeof schema.exclusiveMinimum === 'number' ? schema.exclusiveMinimum + 1 : undefined;
    return fc.integer({ min: schema.minimum ?? exclusive ?? -1_000_000, max: schema.maximum ?? 1_000_000 });
  }
  if (type === 'number') {
    const exclusive = typeof schema.exclusiveMinimum === 'number' ? schema.exclusiveMinimum : undefined;
    return fc.double({ min: schema.minimum ?? exclusive ?? -1e6, max: schema.maximum ?? 1e6, minExcluded: exclusive !== undefined, noNaN: true, noDefaultInfinity: true });
  }
  if (type === 'boolean') return fc.boolean();
  if (type === 'array') {
    const min = typeof schema.minItems === 'number' ? schema.minItems : 0;
    return fc.array(validValue(schema.items, options), { minLength: min, maxLength: Math.max(min, typeof schema.maxItems === 'number' ? Math.min(schema.maxItems, 3) : 3) });
  }
  if (type === 'object') {
    const properties = Object.entries(schema.properties ?? {});
    return fc.record(Object.fromEntries(properties.map(([name, property]) => [name, validValue(property, options)])), { requiredKeys: schema.required ?? [] });
  }
  if (schema.format === 'date-time') return instantArbitrary(dates.fromMs, dates.toMs);
  if (schema.pattern) return fc.stringMatching(new RegExp(schema.pattern));
  return fc.string({ minLength: schema.minLength ?? 0, maxLength: Math.min(schema.maxLength ?? 20, 40) });
}

/** A value as a query or header parameter carries it: arrays comma-separated (style form, explode false), the rest as text. */
export function serializeParameter(value: unknown): string {
  return Array.isArray(value) ? value.map(String).join(',') : String(value);
}

export interface Violation<T> {
  value: T;
  why: string;
}

/** Date-times that are not RFC 3339 with a zone: impossible fields, no zone, other notations. */
const malformedInstant: fc.Arbitrary<Violation<string>> = fc.oneof(
  fc
    .record({ y: fc.integer({ min: 1970, max: 2100 }), mo: fc.integer({ min: 13, max: 99 }), d: fc.integer({ min: 1, max: 28 }) })
    .map(({ y, mo, d }) => ({ value: `${y}-${mo}-${String(d).padStart(2, '0')}T00:00:00Z`, why: 'date-time month out of range' })),
  fc
    .record({ y: fc.integer({ min: 1970, max: 2100 }), d: fc.integer({ min: 32, max: 99 }) })
    .map(({ y, d }) => ({ value: `${y}-01-${d}T00:00:00Z`, why: 'date-time day out of range' })),
  fc
    .record({ y: fc.integer({ min: 1970, max: 2100 }), h: fc.integer({ min: 25, max: 99 }) })
    .map(({ y, h }) => ({ value: `${y}-03-04T${h}:00:00Z`, why: 'date-time hour out of range' })),
  instantArbitrary(0, 4_000_000_000_000).map((v) => ({ value: v.replace(/(Z|[+-]\d\d:\d\d)$/, ''), why: 'date-time without a zone' })),
  instantArbitrary(0, 4_000_000_000_000).map((v) => ({ value: v.slice(0, 10), why: 'a date, not a date-time' })),
  instantArbitrary(0, 4_000_000_000_000).map((v) => ({ value: v.slice(0, 10).replaceAll('-', '/') + v.slice(10), why: 'date-time with slashes' })),
  fc.integer({ min: 1, max: 4_000_000_000 }).map((n) => ({ value: String(n), why: 'epoch seconds, not a date-time' })),
  fc.stringMatching(/^[a-z][a-z ]{0,11}$/).map((v) => ({ value: v, why: 'words, not a date-time' })),
);

/** Strings that miss most patterns, for a near miss that turned out to match. */
const MISS_CANDIDATES = ['!', '~~', 'a b', '{x}', 'é', '%00', 'x'.repeat(300), '0'.repeat(300)];

/**
 * Strings outside `pattern`: random text and near misses of a matching value (lower case, one
 * character short or long). A near miss can still match — for `^\d{1,19}$` the lower case, the
 * shorter and the longer value all match short ones — so a candidate that matches is replaced by a
 * fixed miss instead of filtered out: a filter that cannot succeed spins forever (it hung the CI
 * run of 2026-12-07 inside one synchronous fc.sample, past every jest timeout).
 */
function patternMiss(pattern: string): fc.Arbitrary<Violation<string>> {
  const re = new RegExp(pattern);
  const keep = (v: string) => v.length > 0 && !re.test(v) && !/^\.+$/.test(v);
  const misses = MISS_CANDIDATES.filter(keep);
  if (misses.length === 0) throw new Error(`no string misses ${pattern}: the fuzzer cannot make a pattern violation for it`);
  const orMiss = (v: string) => (keep(v) ? v : (misses[v.length % misses.length] as string));
  return fc.oneof(
    fc.string({ minLength: 1, maxLength: 40 }).map(orMiss),
    fc.stringMatching(re).map((v) => orMiss(v.toLowerCase())),
    fc.stringMatching(re).map((v) => orMiss(v.slice(0, -1))),
    fc.stringMatching(re).map((v) => orMiss(`${v}0`)),
  ).map((value) => ({ value, why: `does not match ${pattern}` }));
}

const notInEnum = (values: unknown[]) =>
  fc
    .stringMatching(/^[A-Za-z_][A-Za-z0-9_-]{0,14}$/)
    .filter((v) => !values.some((e) => String(e).toLowerCase() === v.toLowerCase()))
    .map((value) => ({ value, why: `not one of ${values.map(String).join('|')}` }));

/**
 * Query or header values (as sent) violating `schema`, or undefined when the schema admits every
 * string (a plain string parameter can only be violated by leaving a required one out).
 */
export function invalidParameterValue(schema0: OpenApiSchema | undefined): fc.Arbitrary<Violation<string>> | undefined {
  const schema = resolveSchema(schema0);
  if (schema.enum) return notInEnum(schema.enum);
  const type = typeOf(schema);
  if (type === 'integer' || type === 'number') {
    const choices: fc.Arbitrary<Violation<string>>[] = [fc.stringMatching(/^[a-z][a-z0-9]{0,8}$/).map((value) => ({ value, why: 'not a number' }))];
    if (type === 'integer') choices.push(fc.tuple(fc.integer({ min: 0, max: 99 }), fc.integer({ min: 1, max: 9 })).map(([i, f]) => ({ value: `${i}.${f}`, why: 'not an integer' })));
    const low = schema.minimum ?? (typeof schema.exclusiveMinimum === 'number' ? schema.exclusiveMinimum + (type === 'integer' ? 1 : 0) : undefined);
    if (low !== undefined) choices.push(fc.integer({ min: -1_000_000_000, max: Math.ceil(low) - 1 }).map((n) => ({ value: String(n), why: `below the minimum ${low}` })));
    if (schema.maximum !== undefined) choices.push(fc.integer({ min: Math.floor(schema.maximum) + 1, max: 1_000_000_000 }).map((n) => ({ value: String(n), why: `above the maximum ${schema.maximum}` })));
    return fc.oneof(...choices);
  }
  if (type === 'array') {
    const items = resolveSchema(schema.items);
    const choices: fc.Arbitrary<Violation<string>>[] = [];
    const badItem = invalidParameterValue(items);
    if (badItem) {
      choices.push(
        fc.tuple(fc.array(validValue(items), { maxLength: 2 }), badItem).map(([good, bad]) => ({ value: [...good.map(String), bad.value].join(','), why: `an item ${bad.why}` })),
      );
    }
    if (typeof schema.minItems === 'number' && schema.minItems > 0) choices.push(fc.constant({ value: '', why: `fewer than ${schema.minItems} items` }));
    return choices.length > 0 ? fc.oneof(...choices) : undefined;
  }
  if (type === 'boolean') return fc.stringMatching(/^[a-z]{1,8}$/).filter((v) => v !== 'true' && v !== 'false').map((value) => ({ value, why: 'not a boolean' }));
  if (schema.format === 'date-time') return malformedInstant;
  if (schema.pattern) return patternMiss(schema.pattern);
  return undefined;
}

/** JSON values (for a body property) violating `schema`: the wrong type, out of range, a bad enum, a malformed date-time. */
export function invalidJsonValue(schema0: OpenApiSchema | undefined): fc.Arbitrary<Violation<unknown>> {
  const schema = resolveSchema(schema0);
  const type = typeOf(schema);
  const wrongType: Record<string, fc.Arbitrary<unknown>> = {
    string: fc.oneof(fc.integer(), fc.boolean(), fc.constant({})),
    number: fc.oneof(fc.string({ maxLength: 8 }), fc.boolean(), fc.constant([])),
    integer: fc.oneof(fc.string({ maxLength: 8 }), fc.boolean(), fc.constant([])),
    boolean: fc.oneof(fc.integer(), fc.string({ maxLength: 8 })),
    array: fc.oneof(fc.string({ maxLength: 8 }), fc.integer(), fc.constant({})),
    object: fc.oneof(fc.string({ maxLength: 8 }), fc.integer(), fc.constant([])),
  };
  const choices: fc.Arbitrary<Violation<unknown>>[] = [(wrongType[type ?? 'string'] ?? wrongType.string!).map((value) => ({ value, why: `not of type ${type ?? 'string'}` }))];
  if (schema.enum) choices.push(notInEnum(schema.enum));
  if (type === 'number' || type === 'integer') {
    if (typeof schema.exclusiveMinimum === 'number') choices.push(fc.double({ min: -1e6, max: schema.exclusiveMinimum, noNaN: true }).map((value) => ({ value, why: `not above ${String(schema.exclusiveMinimum)}` })));
    if (schema.minimum !== undefined) choices.push(fc.double({ min: -1e6, max: schema.minimum, maxExcluded: true, noNaN: true }).map((value) => ({ value, why: `below the minimum ${schema.minimum}` })));
    if (schema.maximum !== undefined) choices.push(fc.double({ min: schema.maximum, max: schema.maximum * 1000 + 1e6, minExcluded: true, noNaN: true, noDefaultInfinity: true }).map((value) => ({ value, why: `above the maximum ${schema.maximum}` })));
  }
  if (type === 'array' && schema.items) {
    const items = schema.items;
    choices.push(fc.tuple(fc.array(validValue(items), { maxLength: 2 }), invalidJsonValue(items)).map(([good, bad]) => ({ value: [...good, bad.value], why: `an item ${bad.why}` })));
  }
  if (schema.format === 'date-time') choices.push(malformedInstant);
  else if (schema.pattern) choices.push(patternMiss(schema.pattern));
  return fc.oneof(...choices);
}
