/**
 * Checks real HTTP responses against the published OpenAPI 3.1 document, so the contract and the
 * code cannot drift apart unnoticed.
 *
 * Invariants: a response passes only if its path, method and status are documented (an explicit
 * code, an `NXX` range or `default`), its media type is documented, and its body matches the
 * schema. OpenAPI 3.1 schemas are JSON Schema 2020-12, so Ajv's 2020 dialect checks them as-is
 * (`type: ['string', 'null']` for nullable); `#/components/...` refs resolve through the
 * document's components, registered once under DOC_ID.
 */
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import formatsModule from 'ajv-formats';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { findDocumentedPath, pickMediaType, pickResponse } from './openapi-match.js';

export interface OpenApiDocument {
  openapi: string;
  paths?: Record<string, Record<string, unknown>>;
  components?: Record<string, unknown>;
  [key: string]: unknown;
}

export interface ResponseUnderTest {
  method: string;
  /** The concrete URL path, e.g. `/v1/connections/c_123?limit=5` (query and hash are ignored). */
  path: string;
  status: number;
  /** Parsed JSON, or a string (parsed when the media type is JSON); undefined or '' for no body. */
  body?: unknown;
  /** The Content-Type header; parameters such as `; charset=utf-8` are ignored. */
  contentType?: string;
}

export interface ResponseValidator {
  /** Every problem found; empty when the response matches the document. */
  validate(response: ResponseUnderTest): string[];
}

const DOC_ID = 'https://switchyard.invalid/openapi.json';

// ajv-formats is CommonJS: its default import is `module.exports` (the plugin function), and
// TypeScript (nodenext) types it as the module object. The plugin also sets `exports.default` to
// itself, so `.default` is the plugin for both.
const addFormats = formatsModule.default;

/** `<repo>/openapi/openapi.json`, found by walking up from this file to the workspace root. */
export function defaultOpenApiPath(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (;;) {
    try {
      readFileSync(path.join(dir, 'nx.json'));
      return path.join(dir, 'openapi', 'openapi.json');
    } catch {
      const parent = path.dirname(dir);
      if (parent === dir) throw new Error('workspace root (nx.json) not found above libs/testing');
      dir = parent;
    }
  }
}

export function loadOpenApi(file: string = defaultOpenApiPath()): OpenApiDocument {
  const doc = JSON.parse(readFileSync(file, 'utf8')) as OpenApiDocument;
  if (typeof doc.openapi !== 'string' || !doc.openapi.startsWith('3.1')) {
    throw new Error(`${file}: expected an OpenAPI 3.1 document, got openapi: ${JSON.stringify(doc.openapi)}`);
  }
  return doc;
}

/** Points local refs (`#/components/...`) of a schema taken out of the document back at it. */
function anchorRefs(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(anchorRefs);
  if (node === null || typeof node !== 'object') return node;
  return Object.fromEntries(
    Object.entries(node).map(([key, value]) => [key, key === '$ref' && typeof value === 'string' && value.startsWith('#') ? DOC_ID + value : anchorRefs(value)]),
  );
}

function isJson(mediaType: string): boolean {
  return mediaType === 'application/json' || mediaType.endsWith('+json');
}

export function createResponseValidator(doc: OpenApiDocument): ResponseValidator {
  const ajv = new Ajv2020({ allErrors: true, strict: false, validateSchema: false });
  addFormats(ajv);
  // OpenAPI's own formats: check the integer ranges, accept the descriptive ones.
  ajv.addFormat('int32', { type: 'number', validate: (n: number) => Number.isInteger(n) && n >= -(2 ** 31) && n < 2 ** 31 });
  ajv.addFormat('int64', { type: 'number', validate: (n: number) => Number.isInteger(n) });
  for (const name of ['float', 'double', 'password', 'binary', 'byte']) ajv.addFormat(name, true);
  ajv.addSchema({ $id: DOC_ID, components: doc.components ?? {} });
  const compiled = new Map<string, ValidateFunction>();

  function validate(response: ResponseUnderTest): string[] {
    const method = response.method.toLowerCase();
    const concrete = response.path.split(/[?#]/)[0] ?? '';
    const where = `${response.method.toUpperCase()} ${concrete} → ${response.status}`;
    const found = findDocumentedPath(doc.paths ?? {}, concrete);
    if (!found) return [`${where}: no documented path matches "${concrete}"`];
    const operation = found.item[method] as { responses?: Record<string, unknown> } | undefined;
    if (!operation) {
      const documented = Object.keys(found.item).filter((k) => ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'].includes(k));
      return [`${where}: method not documented for ${found.template} (documented: ${documented.join(', ') || 'none'})`];
    }
    const picked = pickResponse(operation.responses ?? {}, response.status);
    if (!picked) return [`${where}: status ${response.status} not documented for ${method.toUpperCase()} ${found.template} (documented: ${Object.keys(operation.responses ?? {}).join(', ')})`];
    const content = (picked.response as { content?: Record<string, { schema?: unknown }> }).content ?? {};
    const hasBody = response.body !== undefined && response.body !== '';
    if (Object.keys(content).length === 0) {
      return hasBody ? [`${where}: response ${picked.key} of ${found.template} documents no body, but one was sent`] : [];
    }
    const media = pickMediaType(content, response.contentType);
    if (!media) return [`${where}: content type "${response.contentType}" not documented (documented: ${Object.keys(content).join(', ')})`];
    if (!hasBody) return [`${where}: response ${picked.key} of ${found.template} documents a ${media} body, but none was sent`];
    let body = response.body;
    if (typeof body === 'string' && isJson(media)) {
      try {
        body = JSON.parse(body);
      } catch {
        return [`${where}: body is not valid JSON for ${media}`];
      }
    }
    const schema = content[media]?.schema;
    if (schema === undefined) return [];
    const key = `${found.template} ${method} ${picked.key} ${media}`;
    let check = compiled.get(key);
    if (!check) {
      check = ajv.compile(anchorRefs(schema) as object);
      compiled.set(key, check);
    }
    if (check(body)) return [];
    return (check.errors ?? []).map((e) => {
      const extra = e.keyword === 'additionalProperties' ? ` ("${String((e.params as { additionalProperty?: string }).additionalProperty)}")` : '';
      return `${where}: body${e.instancePath || ''} ${e.message ?? e.keyword}${extra} [schema ${e.schemaPath}]`;
    });
  }

  return { validate };
}

/** Throws one readable error listing every problem when the response does not match the document. */
export function expectValidResponse(validator: ResponseValidator, response: ResponseUnderTest): void {
  const errors = validator.validate(response);
  if (errors.length > 0) {
    throw new Error(`Response does not match the OpenAPI document:\n${errors.map((e) => `  - ${e}`).join('\n')}`);
  }
}
