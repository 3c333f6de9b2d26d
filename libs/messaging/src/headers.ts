/**
 * The header table (also in libs/messaging/README.md) and the mapping between the port's
 * `MessageHeaders` and wire headers. Transport-neutral: the JetStream bus turns the record into
 * `MsgHdrs`, the in-process bus keeps it as is.
 * Invariant: a header the bus owns (`Nats-Msg-Id`, `x-msg-version`, the dead-letter ones) is set
 * only by the bus; a caller's value under the same name is dropped, never trusted.
 */
import type { MessageHeaders } from './port.js';

export const HEADERS = {
  /** Correlation id of the originating request (the gateway's x-request-id). */
  correlationId: 'x-correlation-id',
  /** W3C trace context. */
  traceparent: 'traceparent',
  /** Schema version of the payload (`EventDefinition.version`). */
  msgVersion: 'x-msg-version',
  /** JetStream de-duplication key (`PublishOptions.msgId`). */
  msgId: 'Nats-Msg-Id',
  /** Dead letters: why the consumer gave up (snake_case). */
  deadLetterReason: 'x-dead-letter-reason',
  /** Dead letters: the durable that gave up. */
  deadLetterConsumer: 'x-dead-letter-consumer',
  /** Dead letters: the original subject. */
  deadLetterSubject: 'x-dead-letter-subject',
} as const;

/** Property name in `MessageHeaders` → wire name, for the properties that are renamed. */
const RENAMED: Record<string, string> = { correlationId: HEADERS.correlationId, traceparent: HEADERS.traceparent };
const RENAMED_BACK: Record<string, string> = Object.fromEntries(Object.entries(RENAMED).map(([k, v]) => [v, k]));

const BUS_OWNED = new Set(
  [HEADERS.msgVersion, HEADERS.msgId, HEADERS.deadLetterReason, HEADERS.deadLetterConsumer, HEADERS.deadLetterSubject].map((h) =>
    h.toLowerCase(),
  ),
);

/** Header names NATS reserves (`Nats-*`) never reach handlers: the msgId is `Delivery.msgId`. */
const isReserved = (name: string): boolean => name.toLowerCase().startsWith('nats-');

/** Port headers → wire headers, adding the bus-owned ones given in `owned`. */
export function toWireHeaders(headers: MessageHeaders | undefined, owned: Record<string, string> = {}): Record<string, string> {
  const wire: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers ?? {})) {
    if (value === undefined) continue;
    const wireName = RENAMED[name] ?? name.toLowerCase();
    if (BUS_OWNED.has(wireName) || isReserved(wireName)) continue;
    wire[wireName] = value;
  }
  return { ...wire, ...owned };
}

/** Wire headers → port headers: known names renamed, the rest kept lower-case, `Nats-*` dropped. */
export function fromWireHeaders(entries: Iterable<readonly [string, string]>): MessageHeaders {
  const headers: MessageHeaders = {};
  for (const [rawName, value] of entries) {
    const name = rawName.toLowerCase();
    if (isReserved(name)) continue;
    headers[RENAMED_BACK[name] ?? name] = value;
  }
  return headers;
}
