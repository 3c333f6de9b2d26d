/**
 * The OpenAPI side of the public response shapes: they are the zod schemas of libs/messaging that
 * validate the contexts' replies (and the pages the gateway builds from them), never written again
 * as DTO classes. A public shape names itself with `.meta({ id, description })` (z.globalRegistry);
 * `ApiZodResponse` makes a route answer it by `$ref`, and `zodComponentSchemas()` renders every named
 * shape as JSON Schema 2020-12 (OpenAPI 3.1's dialect) for document.ts to put under
 * `components.schemas`.
 * Invariants: a route can only reference a schema that has an id (the decorator throws at import
 * otherwise), so every `$ref` it emits resolves; every nested named shape is a `$ref` to its own
 * component (no `__shared` bucket: all ids live in the one global registry).
 */
import { ApiResponse, type OpenAPIObject } from '@nestjs/swagger';
import { WIRE_DATE_TIME_PATTERN } from '@switchyard/domain';
import { z } from 'zod';

type SchemaObject = NonNullable<NonNullable<OpenAPIObject['components']>['schemas']>[string];

const COMPONENTS = '#/components/schemas/';

/** The component name of a public shape: its `.meta({ id })`. */
export function componentId(schema: z.ZodType): string {
  const id = z.globalRegistry.get(schema)?.id;
  if (!id) throw new Error('a public response schema needs .meta({ id }) (last in its chain) to be referenced by the OpenAPI document');
  return id;
}

export const componentRef = (schema: z.ZodType): { $ref: string } => ({ $ref: `${COMPONENTS}${componentId(schema)}` });

/**
 * A route's success (or other) response named by its zod schema once; several schemas make a
 * `oneOf` (routes whose query selects the shape). The response description defaults to the
 * schema's own (document.ts).
 */
export function ApiZodResponse(status: number, schemas: z.ZodType | readonly z.ZodType[], description?: string): MethodDecorator {
  const list = Array.isArray(schemas) ? schemas : [schemas as z.ZodType];
  const schema = list.length === 1 ? componentRef(list[0] as z.ZodType) : { oneOf: list.map(componentRef) };
  return ApiResponse({ status, schema, ...(description ? { description } : {}) });
}

const MAX_SAFE = Number.MAX_SAFE_INTEGER;

/**
 * Drops what zod adds but the format already says or no one needs: the regex zod checks behind
 * `date-time` (except the wire pattern of public timestamps, libs/domain WIRE_DATE_TIME_PATTERN) and `uuid` (the format names it; the committed document stays readable) and the
 * ±2^53-1 bounds of every `.int()`.
 */
function tidy(json: Record<string, unknown>): void {
  if ((json.format === 'date-time' && json.pattern !== WIRE_DATE_TIME_PATTERN) || json.format === 'uuid') delete json.pattern;
  if (json.maximum === MAX_SAFE) delete json.maximum;
  if (json.minimum === -MAX_SAFE) delete json.minimum;
}

/** Every named public shape as a JSON Schema 2020-12 component, refs pointing at their siblings. */
export function zodComponentSchemas(): Record<string, SchemaObject> {
  const { schemas } = z.toJSONSchema(z.globalRegistry, {
    target: 'draft-2020-12',
    io: 'output',
    unrepresentable: 'throw',
    uri: (id) => `${COMPONENTS}${id}`,
    override: (ctx) => tidy(ctx.jsonSchema as Record<string, unknown>),
  });
  if ('__shared' in schemas) throw new Error('a public response schema references a named schema outside the global registry');
  // Each component is a subschema of the document, not a resource of its own: no dialect, no $id.
  return Object.fromEntries(
    Object.entries(schemas).map(([id, schema]) => {
      const component: Record<string, unknown> = { ...schema };
      delete component.$schema;
      delete component.$id;
      return [id, component as SchemaObject];
    }),
  );
}
