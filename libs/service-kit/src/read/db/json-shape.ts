/**
 * A zod schema's shape as a SQL predicate over a jsonb expression, so a reader that renders public
 * items in PostgreSQL (read-frame.ts) leaves out stored values outside the public shape exactly as
 * the schema's parse did — from the one contract in libs/messaging, never a hand-written copy of its
 * bounds. The schema goes through `z.toJSONSchema` and the subset the value shapes use is rendered:
 * objects (properties, required, `additionalProperties: false`), numbers (minimum, maximum,
 * exclusive bounds), strings (enum, const, minLength) and anyOf. Any other validation keyword throws
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

function stringRules(s: JsonSchema, x: string): string[] {
  const out: string[] = [];
  const v = `(${x} #>> '{}')`;
  if (Array.isArray(s.enum)) out.push(`${v} in (${s.enum.map((e) => text(String(e))).join(', ')})`);
  if (typeof s.const === 'string') out.push(`${v} = ${text(s.const)}`);
  if (typeof s.minLength === 'number') out.push(`length(${v}) >= ${s.minLength}`);
  return out;
}

const HANDLED: Record<string, readonly string[]> = {
  object: ['type', 'properties', 'required', 'additionalProperties'],
  number: ['type', 'minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum'],
  integer: ['type', 'minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum'],
  string: ['type', 'enum', 'const', 'minLength'],
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

/** `coalesce(<the schema's rules over the jsonb expression>, false)`. */
export function jsonShapeSql(schema: z.ZodType, jsonb: string): string {
  const json = z.toJSONSchema(schema, { target: 'draft-2020-12', io: 'output', unrepresentable: 'throw' }) as JsonSchema;
  return `coalesce(${predicate(json, jsonb, (json.$defs ?? {}) as Record<string, JsonSchema>)}, false)`;
}
