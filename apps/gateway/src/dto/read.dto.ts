/**
 * What every stored-read query shares (trips, drivers, groups, vehicles): the `expand` parameter.
 * The response shapes are the zod schemas of libs/messaging (directory-read*.v1.ts).
 */
import type { ApiPropertyOptions } from '@nestjs/swagger';

/**
 * The `expand` query parameter of a stored read: one parameter holding a comma-separated list
 * (OpenAPI `style: form`, `explode: false`) of references, each one of `allowed` — the tuple the
 * route's controller hands to read-query.ts `parseExpand`, so the document and the check cannot
 * disagree; any other value is 400 `invalid_query`.
 */
export function expandParameter(allowed: readonly string[], description: string): ApiPropertyOptions {
  // style/explode are parameter fields the property options do not type; Nest copies them onto the parameter.
  const parameter = { style: 'form', explode: false };
  return { type: 'array', items: { type: 'string', enum: [...allowed] }, minItems: 1, description, ...parameter } as ApiPropertyOptions;
}
