/**
 * Read answers as bytes (issue 24 item 4): a context's framed reply carries the public body — or
 * its bulk, a page's items — as the JSON text PostgreSQL rendered, and the gateway forwards those
 * bytes without parsing or re-serializing them. A controller returns a `JsonBody`: `jsonObject`
 * writes the few members the gateway owns (status, the signed cursor, …) around `raw(…)` text, and
 * `JsonBodyInterceptor` sends the bytes as `application/json` (the response-encoding hook then tags
 * and compresses those same bytes).
 * Conformance: the body's zod schema (the one that drives the OpenAPI document) checks the bytes
 * as RESPONSE_VALIDATION says (docs/configuration.md):
 * - `all` (every test): each body parsed and checked; one outside its schema is logged and
 *   answered 500 `internal_error` instead, so a suite cannot pass over it;
 * - `sample` (the production default): one body in SAMPLE_EVERY per process is checked, a violation
 *   logged (error, with the route and the issues, never the body) and the body still served;
 * - `off`: none.
 */
import { Injectable, type CallHandler, type ExecutionContext, type NestInterceptor } from '@nestjs/common';
import type { JsonText } from '@switchyard/messaging';
import type { Logger } from '@switchyard/service-kit';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { map, type Observable } from 'rxjs';
import type { z } from 'zod';

export const RESPONSE_VALIDATION_MODES = ['off', 'sample', 'all'] as const;
export type ResponseValidation = (typeof RESPONSE_VALIDATION_MODES)[number];
/** `sample` checks one body in this many. */
export const SAMPLE_EVERY = 100;

/** JSON text forwarded into a body as it is. */
class RawJson {
  constructor(readonly bytes: Buffer) {}
}

export const raw = (text: JsonText): RawJson => new RawJson(typeof text === 'string' ? Buffer.from(text, 'utf8') : Buffer.from(text.buffer, text.byteOffset, text.byteLength));

export class JsonBody {
  constructor(
    readonly bytes: Buffer,
    /** The public shape the bytes must have (the route's @ApiZodResponse schema). */
    readonly schema: z.ZodType,
  ) {}
}

/** The JSON object of `members` in order, undefined ones left out, `raw` ones copied as they are. */
export function jsonObject(schema: z.ZodType, members: Record<string, unknown>): JsonBody {
  const parts: Buffer[] = [];
  for (const [key, value] of Object.entries(members)) {
    if (value === undefined) continue;
    parts.push(Buffer.from(`${parts.length === 0 ? '{' : ','}${JSON.stringify(key)}:`, 'utf8'));
    parts.push(value instanceof RawJson ? value.bytes : Buffer.from(JSON.stringify(value), 'utf8'));
  }
  parts.push(Buffer.from(parts.length === 0 ? '{}' : '}', 'utf8'));
  return new JsonBody(Buffer.concat(parts), schema);
}

/** A whole body the context produced. */
export const jsonText = (schema: z.ZodType, text: JsonText): JsonBody => new JsonBody(raw(text).bytes, schema);

@Injectable()
export class JsonBodyInterceptor implements NestInterceptor {
  private count = 0;

  constructor(
    private readonly mode: ResponseValidation,
    private readonly logger: Logger,
  ) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    return next.handle().pipe(map((value: unknown) => (value instanceof JsonBody ? this.send(context, value) : value)));
  }

  private send(context: ExecutionContext, body: JsonBody): Buffer {
    if (this.mode === 'all' || (this.mode === 'sample' && ++this.count % SAMPLE_EVERY === 0)) this.check(context, body);
    void context.switchToHttp().getResponse<FastifyReply>().header('content-type', 'application/json; charset=utf-8');
    return body.bytes;
  }

  private check(context: ExecutionContext, body: JsonBody): void {
    let issues: string | undefined;
    try {
      const parsed = body.schema.safeParse(JSON.parse(body.bytes.toString('utf8')));
      if (!parsed.success) issues = parsed.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ').slice(0, 500);
    } catch {
      issues = 'not JSON';
    }
    if (issues === undefined) return;
    const req = context.switchToHttp().getRequest<FastifyRequest>();
    this.logger.error({ route: req.routeOptions.url, method: req.method, issues, mode: this.mode }, 'response body outside its schema');
    // The error filter answers an unexpected error 500 `internal_error`.
    if (this.mode === 'all') throw new Error(`response body outside its schema: ${issues}`);
  }
}
