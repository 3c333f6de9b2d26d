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
