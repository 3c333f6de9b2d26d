/**
 * A zod schema's shape as a SQL predicate over a jsonb expression, so a reader that renders public
 * items in PostgreSQL (read-frame.ts) leaves out stored values outside the public shape exactly as
 * the schema's parse did — from the one contract in libs/messaging, never a hand-written copy of its
 * bounds. The schema goes through `z.toJSONSchema` and the subset the value shapes use is rendered:
 * objects (properties, required, `additionalProperties: false`), numbers (minimum, maximum,
 * exclusive bounds), arrays (items, minItems, maxItems), strings (enum, const, minLength and
 * maxLength in code points as zod counts them, pattern — with `format` only beside the
 * pattern zod emits for it, which is what zod checks) and anyOf. A pattern is matched with
 * PostgreSQL's `~` after `\\d` becomes `[0-9]` (under some locales PostgreSQL's class holds other
 * digits); a pattern with an escape or construct the two dialects may read differently throws.
 * A schema that rewrites its value (`overwrite`, a transform) is rendered as its output shape. Any other validation keyword throws
 * when the predicate is built (at start, and in the specs), so a schema that grows a rule this
 * does not render cannot be served unchecked.
 * The predicate is NULL-safe (coalesced to false): a missing member or a JSON null fails it.
 */
import { z } from 'zod';

type JsonSchema = Record<string, unknown>;

/** Annotation keywords that do not validate. */
const ANNOTATIONS = new Set(['description', 'title', 'id', '$schema', '$defs', 'examples', 'default']);

const text = (value: string) => `'${value.replaceAll("'", "''")}'`;

/** Rules that cast or take members run only once the type is right (`case`: AND does not promise an order). */
const typed = (x: string, type: string, rules: string[]) => `(case when jsonb_typeof(${x}) = '${type}' then ${rules.length > 0 ? rules.join(' and ') : 'true'} else false end)`;

function numberBounds(s: JsonSchema, x: string): string[] {
  const out: string[] = [];
  const n = `(${x})::numeric`;
  if (typeof s.minimum === 'number') out.push(`${n} >= ${s.minimum}`);
  if (typeof s.maximum === 'number') out.push(`${n} <= ${s.maximum}`);
  if (typeof s.exclusiveMinimum === 'number') out.push(`${n} > ${s.exclusiveMinimum}`);
  if (typeof s.exclusiveMaximum === 'number') out.push(`${n} < ${s.exclusiveMaximum}`);
  return out;
}

/** An escape JavaScript and PostgreSQL regular expressions may read differently (any but a quoted metacharacter; `\\d` is rewritten first). */
const UNSHARED_ESCAPE = /\\[^.+*?()[\]{}|^$\\/-]/;

/** A JavaScript pattern of the contract as a PostgreSQL regular expression. */
function posixPattern(pattern: string): string {
  const rewritten = pattern.replaceAll('\\d', '[0-9]');
  if (UNSHARED_ESCAPE.test(rewritten) || rewritten.includes('(?<')) throw new Error(`jsonShapeSql: pattern ${pattern} is not rendered`);
  return rewritten;
}

function stringRules(s: JsonSchema, x: string): string[] {
  const out: string[] = [];
  const v = `(${x} #>> '{}')`;
  if (typeof s.format === 'string' && typeof s.pattern !== 'string') throw new Error(`jsonShapeSql: format ${s.format} without a pattern is not rendered`);
  // `?` is the statements' placeholder: it is spelled chr(63), so the pattern survives parameter binding.
  if (typeof s.pattern === 'string') out.push(`${v} ~ (${posixPattern(s.pattern).split('?').map(text).join(' || chr(63) || ')})`);
  if (Array.isArray(s.enum)) out.push(`${v} in (${s.enum.map((e) => text(String(e))).join(', ')})`);
  if (typeof s.const === 'string') out.push(`${v} = ${text(s.const)}`);
  // Lengths in code points, as zod counts them and PostgreSQL's length() does.
  if (typeof s.minLength === 'number') out.push(`length(${v}) >= ${s.minLength}`);
  if (typeof s.maxLength === 'number') out.push(`length(${v}) <= ${s.maxLength}`);
  return out;
}

let elements = 0;

/** An array's length bounds and every element's rules (each element as `e<n>.v`). */
function arrayRules(s: JsonSchema, x: string, defs: Record<string, JsonSchema>): string[] {
  const out: string[] = [];
  if (typeof s.minItems === 'number') out.push(`jsonb_array_length(${x}) >= ${s.minItems}`);
  if (typeof s.maxItems === 'number') out.push(`jsonb_array_length(${x}) <= ${s.maxItems}`);
  if (s.items !== undefined) {
    const e = `e${++elements}`;
    out.push(`not exists (select 1 from jsonb_array_elements(${x}) ${e}(v) where not coalesce(${predicate(s.items as JsonSchema, `${e}.v`, defs)}, false))`);
  }
  return out;
}

const HANDLED: Record<string, readonly string[]> = {
  object: ['type', 'properties', 'required', 'additionalProperties'],
  number: ['type', 'minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum'],
  integer: ['type', 'minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum'],
  string: ['type', 'enum', 'const', 'minLength', 'maxLength', 'pattern', 'format'],
  array: ['type', 'items', 'minItems', 'maxItems'],
};

function predicate(s: JsonSchema, x: string, defs: Record<string, JsonSchema>): string {
  if (typeof s.$ref === 'string') {
    const target = defs[s.$ref.replace('#/$defs/', '')];
    if (!target) throw new Error(`jsonShapeSql: unresolved ${s.$ref}`);
    return predicate(target, x, defs);
  }
  if (Array.isArray(s.anyOf)) return `(${(s.anyOf as JsonSchema[]).map((b) => predicate(b, x, defs)).join(' or ')})`;
  const type = String(s.type);
  const handled = HANDLED[type];
  const unknown = Object.keys(s).filter((k) => !ANNOTATIONS.has(k) && !handled?.includes(k));
  if (!handled || unknown.length > 0) throw new Error(`jsonShapeSql: ${type} with ${unknown.join(', ') || 'no rule'} is not rendered`);
  if (type === 'string') return typed(x, 'string', stringRules(s, x));
  if (type === 'array') return typed(x, 'array', arrayRules(s, x, defs));
  if (type !== 'object') return typed(x, 'number', [...numberBounds(s, x), ...(type === 'integer' ? [`(${x})::numeric = trunc((${x})::numeric)`] : [])]);
  if (s.additionalProperties !== false) throw new Error('jsonShapeSql: only strict objects are rendered');
  const properties = (s.properties ?? {}) as Record<string, JsonSchema>;
  const required = new Set((s.required ?? []) as string[]);
  const keys = Object.keys(properties);
  const members = keys.map((k) => {
    const member = `(${x} -> ${text(k)})`;
    return required.has(k) ? predicate(properties[k] as JsonSchema, member, defs) : `(${member} is null or ${predicate(properties[k] as JsonSchema, member, defs)})`;
  });
  return typed(x, 'object', [`(${x} - array[${keys.map(text).join(', ')}]::text[]) = '{}'::jsonb`, ...members]);
}

/**
 * The rendered predicates by schema and expression: readers build their statements per request, and
 * a schema's rules over one expression never change (z.toJSONSchema and the rendering ran on every
 * read before). Element aliases (`e<n>`) are scoped to their own subquery, so a fragment reused in
 * another statement stays valid.
 */
const rendered = new WeakMap<z.ZodType, Map<string, string>>();

/** `coalesce(<the schema's rules over the jsonb expression>, false)`. */
export function jsonShapeSql(schema: z.ZodType, jsonb: string): string {
  let bySchema = rendered.get(schema);
  if (!bySchema) rendered.set(schema, (bySchema = new Map()));
  let sql = bySchema.get(jsonb);
  if (sql === undefined) {
    const json = z.toJSONSchema(schema, { target: 'draft-2020-12', io: 'output', unrepresentable: 'throw' }) as JsonSchema;
    sql = `coalesce(${predicate(json, jsonb, (json.$defs ?? {}) as Record<string, JsonSchema>)}, false)`;
    bySchema.set(jsonb, sql);
  }
  return sql;
}
