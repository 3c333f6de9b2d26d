/**
 * The operations of the committed OpenAPI document, for the suites that must cover every operation
 * that exists when they run (odd input, the contract fuzzer, the cross-connection generator): they
 * read this list, never a hand list, so an operation added later is covered without new code.
 */
import { loadOpenApi } from '@switchyard/testing';

export interface OpenApiSchema {
  type?: string | string[];
  format?: string;
  enum?: unknown[];
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  items?: OpenApiSchema;
  properties?: Record<string, OpenApiSchema>;
  required?: string[];
  additionalProperties?: boolean | OpenApiSchema;
  $ref?: string;
  default?: unknown;
  [key: string]: unknown;
}

export interface Parameter {
  name: string;
  in: string;
  required?: boolean;
  schema?: OpenApiSchema;
}

export interface Operation {
  operationId?: string;
  parameters?: Parameter[];
  requestBody?: { required?: boolean; content?: Record<string, { schema?: OpenApiSchema }> };
  security?: Record<string, string[]>[];
  responses?: Record<string, unknown>;
}

export interface DocumentedOperation {
  /** Upper case: GET, POST, … */
  method: string;
  /** The path template, e.g. `/v1/connections/{id}/vehicles/{vehicleId}`. */
  template: string;
  op: Operation;
  /** `GET /v1/…` */
  label: string;
}

export const openApiDocument = loadOpenApi();

const METHODS = ['get', 'post', 'put', 'patch', 'delete'];

/** Every operation of the document, in document order. */
export const documentedOperations: DocumentedOperation[] = Object.entries(openApiDocument.paths ?? {}).flatMap(([template, item]) =>
  Object.entries(item as Record<string, Operation>)
    .filter(([method]) => METHODS.includes(method))
    .map(([method, op]) => ({ method: method.toUpperCase(), template, op, label: `${method.toUpperCase()} ${template}` })),
);

/** The names of a template's path parameters, in order. */
export function pathParameterNames(template: string): string[] {
  return [...template.matchAll(/\{([A-Za-z]+)\}/g)].map((m) => m[1]!);
}

/** The template with each `{name}` replaced by `values[name]` (else `fallback`). */
export function concretePath(template: string, values: Record<string, string>, fallback = 'x'): string {
  return template.replace(/\{([A-Za-z]+)\}/g, (_m, name: string) => values[name] ?? fallback);
}

/** Whether the operation is authenticated with the application secret (else a consumer key, or none). */
export function usesApplicationSecret(op: Operation): boolean {
  return (op.security ?? []).some((requirement) => 'applicationSecret' in requirement);
}

/** Whether the operation declares the `Connection-Token` header (the sync routes; an application's webhook routes take none). */
export function usesConnectionToken(op: Operation): boolean {
  return (op.parameters ?? []).some((p) => p.in === 'header' && p.name.toLowerCase() === 'connection-token');
}

/** The query parameters the operation declares, in document order. */
export function queryParameters(op: Operation): Parameter[] {
  return (op.parameters ?? []).filter((p) => p.in === 'query');
}

/** Every non-empty subset of `items`, in a stable order (singletons first). */
function subsets<T>(items: T[]): T[][] {
  const all: T[][] = [];
  for (let mask = 1; mask < 1 << items.length; mask++) all.push(items.filter((_x, i) => mask & (1 << i)));
  return all.sort((a, b) => a.length - b.length);
}

/**
 * Well-formed values of one query parameter, read from its schema: each enum value; for a list of
 * enum values (`explode: false`, comma-separated), every non-empty subset; for an integer, its
 * minimum, default and maximum; for anything else (free strings such as ids, cursors, date-times,
 * time zones) the caller's `given[name]`, else none. Raw values: the caller URL-encodes them.
 */
export function wellFormedValues(p: Parameter, given: Record<string, string[]> = {}): string[] {
  const schema = p.schema ?? {};
  if (given[p.name]) return given[p.name]!;
  if (schema.enum) return schema.enum.map(String);
  if (schema.type === 'array' && schema.items?.enum) return subsets(schema.items.enum.map(String)).map((s) => s.join(','));
  if (schema.type === 'integer') return [...new Set([schema.minimum, schema.default, schema.maximum].filter((n) => n !== undefined).map(String))];
  return [];
}

/** A small deterministic generator (mulberry32), so a failing case is the same on the next run. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * Combinations of query parameter values, at most `max`: the required parameters alone, then each
 * value of each parameter alone beside them, then seeded random combinations (each optional
 * parameter present or not) until `max` distinct ones. `values[name]` lists a parameter's values;
 * a parameter without values is left out.
 */
export function queryCombinations(parameters: Parameter[], values: Record<string, string[]>, max: number, seed = 1): Record<string, string>[] {
  const usable = parameters.filter((p) => (values[p.name] ?? []).length > 0);
  const required = usable.filter((p) => p.required);
  const random = seededRandom(seed);
  const pick = (name: string) => values[name]![Math.floor(random() * values[name]!.length)]!;
  const base = () => Object.fromEntries(required.map((p) => [p.name, pick(p.name)]));
  const seen = new Map<string, Record<string, string>>();
  const add = (query: Record<string, string>) => {
    const key = JSON.stringify(Object.entries(query).sort());
    if (seen.size < max && !seen.has(key)) seen.set(key, query);
  };
  add(base());
  for (const p of usable) for (const value of values[p.name]!) add({ ...base(), [p.name]: value });
  for (let tries = 0; seen.size < max && tries < max * 20; tries++) {
    const query = base();
    for (const p of usable) if (!p.required && random() < 0.5) query[p.name] = pick(p.name);
    add(query);
  }
  return [...seen.values()];
}

/** `?a=1&b=2` with each value URL-encoded (a list value's commas kept, as `explode: false` sends them); '' for none. */
export function queryString(query: Record<string, string>): string {
  const pairs = Object.entries(query).map(([name, value]) => `${encodeURIComponent(name)}=${encodeURIComponent(value).replaceAll('%2C', ',')}`);
  return pairs.length > 0 ? `?${pairs.join('&')}` : '';
}
