/**
 * Framed replies: a read reply that carries a public body as JSON text the responder produced (most
 * often PostgreSQL, decision 0010's read frame), so neither end of the hop parses or re-serializes
 * it (issue 24 item 4). On the wire a framed reply is one line of JSON — the small `meta` the
 * requester acts on (page position, hasMore, horizon) — then a newline, then the body text:
 *
 *     {"hasMore":true,"horizon":"…"}\n[{"sequence":"1",…},…]
 *
 * `JSON.stringify` never emits a raw newline (it escapes them inside strings), so the first 0x0A
 * byte is the boundary; an error reply (`{"error":…}`) has none and is told apart by that.
 * Only `meta` is checked against its zod schema at run time; the body's schema (the public shape,
 * which drives the OpenAPI document) is checked where it costs nothing in production: by the
 * gateway when RESPONSE_VALIDATION asks for it (`all` in every test) and by the tests' OpenAPI
 * validation of each response.
 */
import { z } from 'zod';

/** A body as JSON text: a string from the responder, bytes (a view of the reply) at the requester. */
export type JsonText = string | Uint8Array;

const FRAMED = new WeakSet<z.ZodType>();

/** The reply schema of a framed RPC: `meta` validated, `body` passed through as JSON text. */
export function framedReply<Meta extends z.ZodType>(meta: Meta) {
  const schema = z.object({ meta, body: z.custom<JsonText>((v) => typeof v === 'string' || v instanceof Uint8Array, 'JSON text') });
  FRAMED.add(schema);
  return schema;
}

/** Whether an RPC's reply schema was built by `framedReply`. */
export const isFramed = (schema: z.ZodType): schema is ReturnType<typeof framedReply> => FRAMED.has(schema);

export type FramedReplyOf<Meta extends z.ZodType> = { meta: z.output<Meta>; body: JsonText };

const NEWLINE = 0x0a;
const encoder = new TextEncoder();

/** The wire bytes of a framed reply whose meta already passed its schema. */
export function encodeFramed(meta: unknown, body: JsonText): Uint8Array {
  const head = encoder.encode(`${JSON.stringify(meta)}\n`);
  const tail = typeof body === 'string' ? encoder.encode(body) : body;
  const out = new Uint8Array(head.length + tail.length);
  out.set(head, 0);
  out.set(tail, head.length);
  return out;
}

/** Splits a framed reply at its first newline; undefined when there is none (an error reply). */
export function splitFramed(data: Uint8Array): { meta: Uint8Array; body: Uint8Array } | undefined {
  const at = data.indexOf(NEWLINE);
  if (at < 0) return undefined;
  return { meta: data.subarray(0, at), body: data.subarray(at + 1) };
}
