/**
 * HTTP wiring of the gateway, applied before the app initialises: request ids and access logs,
 * the one error filter, the DTO validation pipe, the refusal of undeclared query parameters,
 * JSON-only bodies nested at most MAX_BODY_DEPTH levels, client errors in the contract's shape, and the OpenAPI document served at /openapi.json with a human-readable page
 * at /docs (Swagger UI assets come from the swagger-ui-dist package on disk: no CDN, works
 * offline).
 */
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { SwaggerModule } from '@nestjs/swagger';
import type { ServiceRuntime } from '@switchyard/service-kit';
import { buildOpenApiDocument } from '../openapi/document.js';
import { GATEWAY_SETTINGS, type GatewaySettings } from '../config.js';
import { ApiError } from './api-error.js';
import { JsonBodyInterceptor } from './json-body.js';
import { logClientErrorsTo } from './client-error.js';
import { ErrorFilter } from './error.filter.js';
import { installRequestContext } from './request-context.js';
import { RouteTable } from './route-table.js';
import { UndeclaredQueryInterceptor } from './undeclared-query.interceptor.js';
import { ContractValidationPipe } from './validation.pipe.js';

/**
 * Deepest nesting of objects and arrays a JSON body may have. Our bodies are two levels deep; the
 * cap is generous, and checked on the text before anything recursive (secure-json-parse's scan,
 * class-transformer, class-validator) walks the value: 5,000 levels overflowed class-transformer's
 * stack (a 500 any authenticated caller could cause).
 */
export const MAX_BODY_DEPTH = 32;

/** Whether `text` nests `[`/`{` deeper than `max` (brackets inside strings do not count). Linear, no recursion. */
export function nestsDeeperThan(text: string, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++;
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) {
      if (++depth > max) return true;
    } else if (c === 0x7d || c === 0x5d) depth--;
  }
  return false;
}

export function configureGatewayHttp(app: NestFastifyApplication, runtime: ServiceRuntime): void {
  const fastify = app.getHttpAdapter().getInstance();
  logClientErrorsTo(fastify, runtime.logger);
  const routes = new RouteTable().install(fastify);
  installRequestContext(fastify, runtime.logger, runtime.metrics);
  // The gateway's own families (metrics catalog): RED per route, its rate limits, the connect page's provider checks.
  runtime.metrics.declare('httpRequests', 'httpRequestDuration', 'rateLimited', 'providerRequests', 'providerRequestDuration');
  // JSON is the only body format (spec 4). Nest's parsers are off (bodyParser: false in
  // gatewayStartOptions), so Fastify answers every other media type, forms included, with 415; its
  // text/plain parser goes too.
  fastify.removeContentTypeParser('text/plain');
  // An empty body sent with Content-Type: application/json is no body (POST /v1/syncs takes an
  // optional body; retry and cancel take none), not malformed JSON. Whitespace alone is not empty:
  // it is not a JSON text either, so it is 400 invalid_body (not_json), never "no body" (issue 25).
  // Fastify's own parser (secure-json-parse) still does the parsing: it refuses __proto__ and
  // constructor.prototype keys.
  const secureJson = fastify.getDefaultJsonParser('error', 'error');
  fastify.removeContentTypeParser('application/json');
  fastify.addContentTypeParser('application/json', { parseAs: 'string' }, (req, body, done) => {
    const text = typeof body === 'string' ? body : body.toString('utf8');
    if (text === '') return done(null, undefined);
    if (nestsDeeperThan(text, MAX_BODY_DEPTH)) return done(new ApiError('invalid_body', {}, { in: 'body', reason: 'too_deep' }), undefined);
    // Fastify's default JSON parser is synchronous and reports through `done`; nothing to await.
    // Its refusal (a FastifyError, which Nest turns into a bare 400 HttpException) becomes ours, so
    // the answer names why: `in=body, reason=not_json`.
    void secureJson(req, text, (error, value) => (error ? done(new ApiError('invalid_body', {}, { in: 'body', reason: 'not_json' }), undefined) : done(null, value)));
  });
  app.useGlobalFilters(new ErrorFilter(runtime.logger, routes));
  app.useGlobalPipes(new ContractValidationPipe());
  app.useGlobalInterceptors(new UndeclaredQueryInterceptor(), new JsonBodyInterceptor(app.get<GatewaySettings>(GATEWAY_SETTINGS).responseValidation, runtime.logger));

  const document = buildOpenApiDocument(app);
  fastify.get('/openapi.json', { logLevel: 'silent' }, (_req, reply) => {
    void reply.header('content-type', 'application/json; charset=utf-8').send(document);
  });
  SwaggerModule.setup('docs', app, document, {
    useGlobalPrefix: false,
    raw: false,
    customSiteTitle: 'Switchyard API reference',
    // validatorUrl null: Swagger UI would otherwise show a badge image from validator.swagger.io,
    // sending the document's URL to a third party; the page must load nothing from elsewhere.
    swaggerOptions: { url: '/openapi.json', deepLinking: true, validatorUrl: null },
  });
}
