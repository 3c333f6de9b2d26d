/**
 * Request/reply encoding shared by both buses: JSON bodies, zod validation on both sides, and the
 * error envelope `{ "error": { "code", "detail" } }`. A framed reply (framed-reply.ts) validates its
 * `meta` only and carries its body as the JSON text the responder produced, unparsed.
 * Invariants: a handler only ever sees a request that passed its schema (else the reply is
 * `invalid_request`); a requester only ever gets a response that passed its schema (else it throws
 * `RpcError('invalid_response')`); an unexpected handler error becomes `internal_error` and is
 * logged with the subject and error name only, never the payload.
 */
import type { z } from 'zod';
import { RpcError } from './errors.js';
import { describeError, type BusLogger } from './logger.js';
import { encodeFramed, isFramed, splitFramed } from './framed-reply.js';
import type { MessageHeaders, RpcDefinition, RpcHandler } from './port.js';

const encoder = new TextEncoder();
const decoder = new TextDecoder('utf-8', { fatal: true });

/** Issue list without input values: `path: message; …`, at most 500 characters. */
export function describeIssues(error: z.ZodError): string {
  return error.issues
    .map((issue) => `${issue.path.length ? issue.path.join('.') : '(root)'}: ${issue.message}`)
    .join('; ')
    .slice(0, 500);
}

export function encodeJson(value: unknown): Uint8Array {
  return encoder.encode(JSON.stringify(value));
}

/** Parses UTF-8 JSON; undefined on bad bytes or bad JSON. */
export function decodeJson(data: Uint8Array): { ok: true; value: unknown } | { ok: false; detail: string } {
  try {
    return { ok: true, value: JSON.parse(decoder.decode(data)) as unknown };
  } catch (error) {
    return { ok: false, detail: `not UTF-8 JSON: ${describeError(error).errMessage}` };
  }
}

/** Requester side, before sending: the outgoing payload must pass the request schema. */
export function encodeRequest<Req extends z.ZodType>(rpc: RpcDefinition<Req>, payload: z.input<Req>): Uint8Array {
  const parsed = rpc.request.safeParse(payload);
  if (!parsed.success) throw new RpcError('invalid_request', describeIssues(parsed.error));
  return encodeJson(parsed.data);
}

/** Requester side, after the reply: rethrow a typed error or return the validated response. */
export function decodeReply<Res extends z.ZodType>(rpc: RpcDefinition<z.ZodType, Res>, data: Uint8Array): z.output<Res> {
  const framed = isFramed(rpc.response) ? splitFramed(data) : undefined;
  const decoded = decodeJson(framed ? framed.meta : data);
  if (!decoded.ok) throw new RpcError('invalid_response', decoded.detail);
  const rpcError = RpcError.fromBody(decoded.value);
  if (rpcError) throw rpcError;
  if (isFramed(rpc.response)) {
    if (!framed) throw new RpcError('invalid_response', 'framed reply without a body');
    const meta = rpc.response.shape.meta.safeParse(decoded.value);
    if (!meta.success) throw new RpcError('invalid_response', describeIssues(meta.error));
    return { meta: meta.data, body: framed.body } as z.output<Res>;
  }
  const parsed = rpc.response.safeParse(decoded.value);
  if (!parsed.success) throw new RpcError('invalid_response', describeIssues(parsed.error));
  return parsed.data;
}

/** Responder side: validate, run the handler, validate its answer, and encode the reply body. */
export async function answerRequest<Req extends z.ZodType, Res extends z.ZodType>(
  rpc: RpcDefinition<Req, Res>,
  handler: RpcHandler<Req, Res>,
  data: Uint8Array,
  headers: MessageHeaders,
  logger: BusLogger,
): Promise<Uint8Array> {
  const decoded = decodeJson(data);
  if (!decoded.ok) return encodeJson(new RpcError('invalid_request', decoded.detail).toBody());
  const request = rpc.request.safeParse(decoded.value);
  if (!request.success) return encodeJson(new RpcError('invalid_request', describeIssues(request.error)).toBody());
  try {
    const result = await handler(request.data, headers);
    if (isFramed(rpc.response)) {
      // The body is not parsed here: it is checked by the gateway (RESPONSE_VALIDATION) and the tests.
      const { meta, body } = result as { meta: unknown; body: unknown };
      const checked = rpc.response.shape.meta.safeParse(meta);
      if (checked.success && (typeof body === 'string' || body instanceof Uint8Array)) return encodeFramed(checked.data, body);
      logger.error({ subject: rpc.subject, issues: checked.success ? 'body: not JSON text' : describeIssues(checked.error) }, 'rpc handler returned a response that fails its schema');
      return encodeJson(new RpcError('internal_error').toBody());
    }
    const response = rpc.response.safeParse(result);
    if (!response.success) {
      logger.error({ subject: rpc.subject, issues: describeIssues(response.error) }, 'rpc handler returned a response that fails its schema');
      return encodeJson(new RpcError('internal_error').toBody());
    }
    return encodeJson(response.data);
  } catch (error) {
    if (error instanceof RpcError) return encodeJson(error.toBody());
    logger.error({ subject: rpc.subject, correlationId: headers.correlationId, ...describeError(error) }, 'rpc handler failed');
    return encodeJson(new RpcError('internal_error').toBody());
  }
}
