/**
 * Runs one durable delivery through parse → handler → settlement, for both buses. The transport
 * supplies a `SettlementPort` (ack / nak / term / working / dead-letter publish); every decision
 * comes from jetstream/settlement.ts.
 * Invariants: a message is terminated only after its dead letter is stored (a failed DLQ write
 * naks instead, so nothing is dropped); an abandoned delivery (drain deadline passed) is never
 * settled, so the server redelivers it after ackWait; nothing here logs a payload.
 * An observer (ConsumeOptions.observer: service-kit's consumer metrics) is told of each arrival and
 * of the settlement applied — after it is applied, so what it counts has happened.
 */
import type { z } from 'zod';
import { describeError, type BusLogger } from './logger.js';
import type { ConsumerDefinition, DeliveryHandler, DeliveryObserver, MessageHeaders } from './port.js';
import { decodeJson, describeIssues } from './rpc-codec.js';
import type { DeadLetterV1 } from './schemas/dead-letter.v1.js';
import { DEFAULT_BACKOFF, settle, settleAfterDeadLetterFailure, settleBeforeHandling, type HandlerOutcome, type Settlement } from './jetstream/settlement.js';
import { deadLetterSubject } from './subjects.js';

export interface RawDelivery {
  /** Logical subject (namespace stripped). */
  subject: string;
  data: Uint8Array;
  msgId: string | undefined;
  headers: MessageHeaders;
  deliveryCount: number;
  streamSequence: number;
}

export interface SettlementPort {
  ack(): void;
  nak(delayMs: number): void;
  term(): void;
  working(): void;
  /** Durable publish of the dead letter to a logical subject; rejects if it was not stored. */
  publishDeadLetter(subject: string, envelope: DeadLetterV1, msgId: string, headers: MessageHeaders, owned: Record<string, string>): Promise<void>;
}

export interface RunDeliveryArgs<P extends z.ZodType> {
  consumer: ConsumerDefinition<P>;
  handler: DeliveryHandler<z.output<P>>;
  message: RawDelivery;
  port: SettlementPort;
  logger: BusLogger;
  isAbandoned: () => boolean;
  /** Told of the delivery and its settlement (ConsumeOptions.observer). */
  observer?: DeliveryObserver;
}

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

function encodePayload(data: Uint8Array): Pick<DeadLetterV1, 'payload' | 'payloadEncoding'> {
  try {
    return { payloadEncoding: 'utf8', payload: strictUtf8.decode(data) };
  } catch {
    return { payloadEncoding: 'base64', payload: Buffer.from(data).toString('base64') };
  }
}

async function runHandler<P extends z.ZodType>(args: RunDeliveryArgs<P>, progressed: () => void): Promise<HandlerOutcome> {
  const { consumer, handler, message, port } = args;
  const decoded = decodeJson(message.data);
  if (!decoded.ok) return { kind: 'schema_invalid', detail: decoded.detail };
  const parsed = consumer.event.schema.safeParse(decoded.value);
  if (!parsed.success) return { kind: 'schema_invalid', detail: describeIssues(parsed.error) };
  try {
    await handler({
      payload: parsed.data,
      subject: message.subject,
      msgId: message.msgId,
      headers: message.headers,
      deliveryCount: message.deliveryCount,
      inProgress: () => {
        progressed();
        port.working();
      },
    });
    return { kind: 'ok' };
  } catch (error) {
    return { kind: 'failed', error };
  }
}

/** Returns the settlement applied, or undefined when the delivery was abandoned. */
export async function runDelivery<P extends z.ZodType>(args: RunDeliveryArgs<P>): Promise<Settlement | undefined> {
  const { consumer, message, port, logger } = args;
  const backoff = consumer.backoff ?? DEFAULT_BACKOFF;
  const log = { subject: message.subject, durable: consumer.durable, msgId: message.msgId, deliveryCount: message.deliveryCount };
  const { observer } = args;
  const arrivedAt = performance.now();
  // The server's ack deadline runs from the delivery or from the last inProgress() (JetStream `working()`).
  let deadlineFrom = arrivedAt;
  observer?.delivered?.(message.deliveryCount);

  let decision = settleBeforeHandling(message.deliveryCount, consumer.maxDeliver);
  if (!decision) {
    const outcome = await runHandler(args, () => (deadlineFrom = performance.now()));
    if (args.isAbandoned()) {
      observer?.abandoned?.();
      return undefined;
    }
    if (outcome.kind === 'failed') logger.warn({ ...log, ...describeError(outcome.error) }, 'message handler failed');
    decision = settle(outcome, message.deliveryCount, consumer.maxDeliver, backoff);
  }

  if (decision.action === 'ack') port.ack();
  else if (decision.action === 'nak') port.nak(decision.delayMs);
  else {
    const envelope: DeadLetterV1 = {
      originalSubject: message.subject,
      stream: consumer.event.stream,
      consumer: consumer.durable,
      streamSequence: message.streamSequence,
      ...(message.msgId === undefined ? {} : { msgId: message.msgId }),
      reason: decision.reason,
      ...(decision.detail === undefined ? {} : { detail: decision.detail }),
      deliveryCount: message.deliveryCount,
      failedAt: new Date().toISOString(),
      ...encodePayload(message.data),
    };
    const subject = deadLetterSubject(consumer.event.stream, consumer.durable);
    // Stable id: a redelivered message that is dead-lettered again is stored once (duplicate window).
    const msgId = `dlq:${consumer.event.stream}:${message.streamSequence}:${consumer.durable}`;
    const headers: MessageHeaders = { correlationId: message.headers.correlationId, traceparent: message.headers.traceparent };
    const owned = { 'x-dead-letter-reason': decision.reason, 'x-dead-letter-consumer': consumer.durable, 'x-dead-letter-subject': message.subject };
    try {
      await port.publishDeadLetter(subject, envelope, msgId, headers, owned);
      port.term();
      logger.warn({ ...log, reason: decision.reason, detail: decision.detail }, 'message dead-lettered');
    } catch (error) {
      const retry = settleAfterDeadLetterFailure(message.deliveryCount, backoff);
      port.nak(retry.delayMs);
      decision = retry;
      // The stream and sequence find the message in its own stream should the server stop
      // redelivering it (maxDeliver + spare) while the DLQ still refuses it (full: decision 0026).
      logger.error({ ...log, stream: consumer.event.stream, streamSequence: message.streamSequence, ...describeError(error) }, 'dead-letter write failed; message will be redelivered');
    }
  }
  if (observer?.settled) {
    const now = performance.now();
    const detail = { elapsedMs: now - arrivedAt, ackWaitExpired: now - deadlineFrom > consumer.ackWaitMs };
    if (decision.action === 'dead_letter') observer.settled('dead_letter', { ...detail, reason: decision.reason });
    else observer.settled(decision.action, detail);
  }
  return decision;
}
