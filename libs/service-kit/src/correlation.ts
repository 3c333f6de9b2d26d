/**
 * Request-scoped context (correlation id, trace parent) carried through async calls with
 * AsyncLocalStorage, so every log line and every outgoing message carries the id of the request
 * or message that caused it without threading it through every signature.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';

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
