/**
 * Builds the OpenAPI 3.1.0 document (info.version 1.16.0) from the gateway's controllers, its input
 * DTOs and the zod schemas of the public response shapes (zod-schemas.ts: one definition, in
 * libs/messaging, validates the context's reply and documents the response).
 * `openapi/openapi.json` is this document, committed; a test regenerates it and fails when the
 * committed file is stale (run `npm run openapi` to refresh it).
 *
 * Post-processing does what decorators cannot say: schemas the spec marks "no extra properties"
 * get `additionalProperties: false`, every operation documents the generic failures every route
 * can produce (500, 503; every 503 with its `Retry-After` header), a /v1 operation without query
 * parameters documents the 400 `invalid_query` it answers to any, and a success response without its own description takes the
 * one of the schema it returns (the zod schema's `.meta({ description })`, or `@ApiSchema({ description })` on a DTO). When neither exists,
 * rendering the committed file fails (`strict`), so no operation ships an empty description; the
 * running gateway only falls back to a generic one (a documentation gap must not stop the API).
 * Every /v1 response also gets the headers of the response hook (services/response-encoding.ts:
 * Cache-Control, Vary, Content-Encoding, a GET's ETag, If-None-Match and 304), and the info
 * description states the wire conventions (decision 0017).
 */
import type { INestApplication } from '@nestjs/common';
import { DocumentBuilder, SwaggerModule, type OpenAPIObject } from '@nestjs/swagger';
import { REQUEST_RATE } from '@switchyard/contracts';
import { WEBHOOK_BODY_SCHEMAS, WEBHOOK_CONTENT_TYPE, WEBHOOK_EVENT_TYPES, WIRE_CONVENTIONS_TEXT } from '@switchyard/messaging';
import { ErrorBodyDto } from '../dto/error.dto.js';
import { SERVICE_UNAVAILABLE_RETRY_AFTER_SECONDS } from '../http/error.filter.js';
import { documentResponseEncoding, RESPONSE_ENCODING_TEXT } from '../services/response-encoding.js';
import { closedSchemaNames } from './closed.js';
import { documentRequestErrors, REQUEST_RULES_TEXT } from './request-errors.js';
import { componentRef, zodComponentSchemas } from './zod-schemas.js';

export const OPENAPI_VERSION = '3.1.0';
export const DESCRIPTION_VERSION = '1.16.0';

/** DTOs whose spec shape allows no extra properties (newer DTOs say it with `@Closed()`, openapi/closed.ts). */
const CLOSED_SCHEMAS = new Set(['ErrorBodyDto', 'CapabilitiesDto', 'VehicleMetadataCapabilityDto', 'GroupInventoryCapabilityDto', 'ConnectionDto', 'SyncControlDto', 'CreateSyncDto']);

export function buildOpenApiDocument(app: INestApplication, options: { strict?: boolean } = {}): OpenAPIObject {
  const config = new DocumentBuilder()
    .setOpenAPIVersion(OPENAPI_VERSION)
    .setTitle('Switchyard fleet telematics API')
    .setDescription(
      [
        'One normalized API over Samsara, Motive and Geotab. Preview contract (interface v1).',
        '',
        'Every error is a JSON body with one field, `error`, carrying a snake_case reason code.',
        'Missing data is unknown, never zero: absent or failed values carry a status and a reason code.',
        'A query parameter the operation does not declare is refused with 400 `invalid_query`, never ignored.',
        'Responses carry `x-request-id`; send your own `x-request-id` (1-128 chars of `[A-Za-z0-9._:-]`) to correlate.',
        REQUEST_RULES_TEXT,
        '',
        WIRE_CONVENTIONS_TEXT,
        RESPONSE_ENCODING_TEXT,
      ].join('\n'),
    )
    .setVersion(DESCRIPTION_VERSION)
    .addServer('/', 'This deployment')
    // addSecurity, not addBearerAuth: the latter stamps `bearerFormat: JWT`, and ours are opaque tokens.
    .addSecurity('applicationSecret', { type: 'http', scheme: 'bearer', description: 'Server-side application secret `sk_prod_…` or `sk_sandbox_…` (sync routes, with the Connection-Token header; alone on the webhook endpoint routes, an addition beyond the contract).' })
    .addSecurity('consumerKey', { type: 'http', scheme: 'bearer', description: 'Server-side consumer key `pt_…` with an explicit connection grant. Never embed it in a browser.' })
    .build();
  const document = SwaggerModule.createDocument(app, config, { extraModels: [ErrorBodyDto], operationIdFactory: (_c, method) => method });
  document.components = { ...document.components, schemas: { ...document.components?.schemas, ...zodComponentSchemas() } };
  return finish(document, options.strict ?? false);
}

function finish(raw: OpenAPIObject, strict: boolean): OpenAPIObject {
  for (const [name, schema] of Object.entries(raw.components?.schemas ?? {})) {
    if ((CLOSED_SCHEMAS.has(name) || closedSchemaNames().has(name)) && 'properties' in schema) (schema as { additionalProperties?: boolean }).additionalProperties = false;
  }
  const document = withoutDtoSuffix(raw);
  const errorRef = { $ref: '#/components/schemas/ErrorBody' };
  for (const [path, item] of Object.entries(document.paths)) {
    for (const method of ['get', 'post', 'put', 'patch', 'delete'] as const) {
      const op = item[method];
      if (!op) continue;
      for (const [status, response] of Object.entries(op.responses) as [string, ResponseLike][]) {
        if (!status.startsWith('2') || response.description || '$ref' in response) continue;
        const problem = `${method.toUpperCase()} ${path}: response ${status} has no description (give its zod schema .meta({ description }))`;
        response.description = describedBy(document, response) ?? (strict ? fail(problem) : 'Success.');
      }
      if (path.startsWith('/v1/')) documentUndeclaredQuery(op as OperationLike, errorRef);
      if (path.startsWith('/v1/') && (op as { security?: unknown[] }).security?.length) documentRequestRate(op as OperationLike, errorRef);
      op.responses['500'] ??= { description: 'Unexpected failure (`internal_error`); the body says nothing internal, `x-request-id` identifies it.', content: { 'application/json': { schema: errorRef } } };
      op.responses['503'] ??= { description: 'A backing service or the database is unavailable (`service_unavailable`).', content: { 'application/json': { schema: errorRef } } };
      (op.responses['503'] as ResponseLike).headers = { ...(op.responses['503'] as ResponseLike).headers, 'Retry-After': RETRY_AFTER };
    }
  }
  documentResponseEncoding(document);
  documentRequestErrors(document);
  documentWebhooks(document);
  return sortKeys(document) as OpenAPIObject;
}

/**
 * The outbound side (OpenAPI 3.1 `webhooks`, decision 0042): one entry per event type, the POST an
 * endpoint receives — the CloudEvents body (the zod schema of libs/messaging webhook.v1.ts, by
 * `$ref`), the three Standard Webhooks headers, and what the answer means to the delivery.
 */
function documentWebhooks(document: OpenAPIObject): void {
  const header = (name: string, description: string, schema: Record<string, unknown>) => ({ name, in: 'header', required: true, description, schema });
  (document as unknown as { webhooks?: Record<string, unknown> }).webhooks = Object.fromEntries(
    WEBHOOK_EVENT_TYPES.map((type) => [
      type,
      {
        post: {
          operationId: `webhook_${type.replace('.', '_')}`,
          summary: `The \`${type}\` event, POSTed to a subscribed endpoint`,
          description:
            'Signed per Standard Webhooks: verify `webhook-signature` over `webhook-id.webhook-timestamp.body` (the raw body bytes) with the endpoint\'s secret before trusting the body (the SDK\'s `verifyWebhook` does), refuse a timestamp more than 5 minutes away, and de-duplicate by `webhook-id` (the CloudEvents `id`): delivery is at least once. Per vehicle (faults) or connection (syncs, connection status) events arrive in order. Redirects are not followed.',
          parameters: [
            header('webhook-id', 'The event id (CloudEvents `id`): the same on every attempt and replay.', { type: 'string', format: 'uuid' }),
            header('webhook-timestamp', 'When this attempt was signed: Unix time in seconds.', { type: 'string', pattern: '^[0-9]{1,12}$' }),
            header('webhook-signature', 'Space-separated `v1,<base64 HMAC-SHA256>` signatures, one per valid secret (two during a rotation).', { type: 'string', pattern: '^v1,[A-Za-z0-9+/=]+( v1,[A-Za-z0-9+/=]+)*$' }),
          ],
          requestBody: { required: true, content: { [WEBHOOK_CONTENT_TYPE]: { schema: componentRef(WEBHOOK_BODY_SCHEMAS[type]) } } },
          responses: {
            '2XX': { description: 'Delivered (within 15 seconds of the request). The body is read up to 64 KiB and ignored.' },
            '410': { description: 'Gone: the endpoint is disabled at once (`disabledReason: gone`); nothing more is sent until it is enabled again.' },
            default: {
              description:
                'Anything else, no answer within 15 seconds, or a redirect: the attempt failed and is retried after 5 s, 5 min, 30 min, 2 h, 5 h, 10 h and 10 h (not sooner than a `Retry-After` asks); an endpoint with no success for 5 days is disabled (`disabledReason: failing`).',
            },
          },
        },
      },
    ]),
  );
}

/**
 * Every authenticated /v1 operation takes a token of its credential's request-rate bucket
 * (auth.service.ts, REQUEST_RATE): its 429 says so, added to the one it documents already (the
 * refresh and session limits) or as its own, with `Retry-After`.
 */
function documentRequestRate(op: OperationLike, errorRef: { $ref: string }): void {
  const { perConsumerKey, perApplication } = REQUEST_RATE;
  const refusal =
    `Request rate of this credential exceeded (\`rate_limited\`): ${perConsumerKey.ratePerSecond} requests/s with bursts of ${perConsumerKey.burst} per consumer key, ` +
    `${perApplication.ratePerSecond}/s with bursts of ${perApplication.burst} per application, across every gateway process (catalog \`limits.requestRate\`); retry after \`Retry-After\` seconds.`;
  const existing = op.responses['429'] as (ResponseLike & { description?: string }) | undefined;
  if (!existing) {
    op.responses['429'] = { description: refusal, headers: { 'Retry-After': RATE_RETRY_AFTER }, content: { 'application/json': { schema: errorRef } } };
    return;
  }
  if (!existing.description?.includes('limits.requestRate')) existing.description = `${existing.description ?? ''} ${refusal}`.trim();
  existing.headers = { 'Retry-After': RATE_RETRY_AFTER, ...existing.headers };
}

/**
 * An operation without query parameters refuses any (http/undeclared-query.interceptor.ts): its
 * 400 says so, added to the one it documents already or as its own.
 */
function documentUndeclaredQuery(op: OperationLike, errorRef: { $ref: string }): void {
  if (op.parameters?.some((p) => 'in' in p && p.in === 'query')) return;
  const refusal = 'Any query parameter: this operation takes none (`invalid_query`).';
  const existing = op.responses['400'];
  if (!existing) op.responses['400'] = { description: refusal, content: { 'application/json': { schema: errorRef } } };
  else if (!existing.description?.includes('`invalid_query`')) existing.description = `${existing.description ?? ''} ${refusal}`.trim();
}

interface OperationLike {
  parameters?: ({ in?: string } | { $ref: string })[];
  responses: Record<string, ResponseLike>;
}

/** The part of an OpenAPI response object read here (the package does not export its type). */
interface ResponseLike {
  description?: string;
  content?: Record<string, { schema?: unknown }>;
  headers?: Record<string, unknown>;
}

/** The header every 503 carries (http/error.filter.ts). */
const RETRY_AFTER = {
  description: `Seconds to wait before retrying (${SERVICE_UNAVAILABLE_RETRY_AFTER_SECONDS}); every 503 carries it.`,
  schema: { type: 'integer', minimum: 1 },
};

/** The header of a 429 (`rate_limited`). */
const RATE_RETRY_AFTER = {
  description: 'Seconds until the limit lets this request through again.',
  schema: { type: 'integer', minimum: 1 },
};

/** The description of the component schema a response returns, if it has one. */
function describedBy(document: OpenAPIObject, response: ResponseLike): string | undefined {
  const ref = (response.content?.['application/json']?.schema as { $ref?: string } | undefined)?.$ref;
  const name = ref?.replace('#/components/schemas/', '');
  const schema = name ? document.components?.schemas?.[name] : undefined;
  return schema && 'description' in schema && schema.description ? schema.description : undefined;
}

function fail(message: string): never {
  throw new Error(message);
}

/** Component names as the spec says them (`Connection`, not `ConnectionDto`), refs rewritten to match. */
function withoutDtoSuffix(document: OpenAPIObject): OpenAPIObject {
  const text = JSON.stringify(document).replace(/"#\/components\/schemas\/([A-Za-z0-9]+)Dto"/g, '"#/components/schemas/$1"');
  const renamed = JSON.parse(text) as OpenAPIObject;
  const schemas = renamed.components?.schemas ?? {};
  renamed.components = { ...renamed.components, schemas: Object.fromEntries(Object.entries(schemas).map(([name, schema]) => [name.replace(/Dto$/, ''), schema])) };
  return renamed;
}

/** Stable key order so the committed file diffs cleanly. */
function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .map((k) => [k, sortKeys((value as Record<string, unknown>)[k])]),
    );
  }
  return value;
}
