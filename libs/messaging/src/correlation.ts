/**
 * The correlation context (correlation id, W3C trace parent) of the request or message being
 * handled, carried through async calls with AsyncLocalStorage, so every log line and every
 * outgoing message carries the id of what caused it without threading it through signatures.
 * Both buses stamp it on every request and publish (`outgoingHeaders`); the bus transport in
 * libs/service-kit enters it from the headers of every message it hands to a handler.
 * Invariant: every outgoing message carries a correlation id and a valid `traceparent` — the
 * current trace's, with a new parent id for this hop, or a new trace when there is none.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { randomBytes, randomUUID } from 'node:crypto';
import type { MessageHeaders } from './port.js';

export interface CorrelationContext {
  correlationId: string;
  traceparent?: string;
}

const storage = new AsyncLocalStorage<CorrelationContext>();

export function runWithCorrelation<T>(ctx: CorrelationContext, fn: () => T): T {
  return storage.run(ctx, fn);
}

/** Binds ctx to the rest of the current async chain (used from Fastify's onRequest hook). */
export function enterCorrelation(ctx: CorrelationContext): void {
  storage.enterWith(ctx);
}

export function currentCorrelation(): CorrelationContext | undefined {
  return storage.getStore();
}

/** Accepts a caller's id only when it is short and printable; otherwise mints one. */
export function correlationIdFrom(candidate: unknown): string {
  if (typeof candidate === 'string' && /^[A-Za-z0-9._:-]{1,128}$/.test(candidate)) return candidate;
  return randomUUID();
}

// version 00, 32-hex trace id (not all zero), 16-hex parent id (not all zero), 2-hex flags.
const TRACEPARENT = /^00-(?!0{32})([0-9a-f]{32})-(?!0{16})[0-9a-f]{16}-([0-9a-f]{2})$/;

/** A valid incoming `traceparent` as is; anything else undefined (a malformed one is not propagated). */
export function traceparentFrom(candidate: unknown): string | undefined {
  return typeof candidate === 'string' && TRACEPARENT.test(candidate) ? candidate : undefined;
}

/** The next hop of a trace: same trace id and flags, a new parent id; a new sampled trace without one. */
export function childTraceparent(parent: string | undefined): string {
  const match = parent === undefined ? null : TRACEPARENT.exec(parent);
  const spanId = randomBytes(8).toString('hex');
  return match ? `00-${match[1]}-${spanId}-${match[2]}` : `00-${randomBytes(16).toString('hex')}-${spanId}-01`;
}

/**
 * The headers of an outgoing message: the caller's, with the correlation id and trace parent of
 * the current context where the caller set none (a fresh id and trace outside any context).
 */
export function outgoingHeaders(headers: MessageHeaders | undefined): MessageHeaders {
  const current = currentCorrelation();
  return {
    ...headers,
    correlationId: headers?.correlationId ?? current?.correlationId ?? randomUUID(),
    traceparent: headers?.traceparent ?? childTraceparent(current?.traceparent),
  };
}
