/**
 * Stream and durable-consumer provisioning: create when missing, else compare with the live config
 * and update what differs. Called by every process at start, so it must be idempotent and safe to
 * race: a concurrent create surfaces as "already in use"/"already exists", which we treat as
 * "someone else created it" and fall through to compare-and-update.
 */
import {
  AckPolicy,
  DeliverPolicy,
  DiscardPolicy,
  JetStreamApiError,
  ReplayPolicy,
  RetentionPolicy,
  StorageType,
  type ConsumerConfig,
  type JetStreamManager,
  type StreamConfig,
} from '@nats-io/jetstream';
import { nanos } from '@nats-io/transport-node';
import type { BusLogger } from '../logger.js';
import type { ConsumerDefinition, StreamDefinition } from '../port.js';
import type { Namespace } from '../subjects.js';
import { serverMaxDeliver } from './settlement.js';

/** JetStream API error codes we tolerate (nats-server errors.json). */
const STREAM_NOT_FOUND = 10059;
const STREAM_NAME_IN_USE = 10058;

function isApiError(error: unknown, code?: number): error is JetStreamApiError {
  return error instanceof JetStreamApiError && (code === undefined || error.code === code);
}

/** The parts of a stream config we own; everything else keeps the server default. */
export function desiredStreamConfig(ns: Namespace, def: StreamDefinition): StreamConfig {
  return {
    name: ns.stream(def.name),
    subjects: def.subjects.map((s) => ns.subject(s)),
    duplicate_window: nanos(def.duplicateWindowMs),
    max_age: nanos(def.maxAgeMs ?? 0),
    retention: RetentionPolicy.Limits,
    storage: StorageType.File,
    // No limit is -1 on the wire (a stream that had one loses it when the definition drops it).
    max_bytes: def.maxBytes ?? -1,
    discard: def.discard === 'new' ? DiscardPolicy.New : DiscardPolicy.Old,
    num_replicas: 1,
  } as StreamConfig;
}

function sameSubjects(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && [...a].sort().every((s, i) => s === [...b].sort()[i]);
}

export async function ensureStream(jsm: JetStreamManager, ns: Namespace, def: StreamDefinition, logger: BusLogger): Promise<void> {
  const want = desiredStreamConfig(ns, def);
  let info;
  try {
    info = await jsm.streams.info(want.name);
  } catch (error) {
    if (!isApiError(error, STREAM_NOT_FOUND)) throw error;
    try {
      await jsm.streams.add(want);
      logger.info({ stream: want.name }, 'stream created');
      return;
    } catch (addError) {
      if (!isApiError(addError, STREAM_NAME_IN_USE)) throw addError;
      info = await jsm.streams.info(want.name); // lost a race with another process: compare below
    }
  }
  const have = info.config;
  const maxBytes = appliedMaxBytes(want.max_bytes, have.max_bytes, info.state.bytes);
  if (maxBytes !== want.max_bytes) {
    logger.warn(
      { stream: want.name, storedBytes: info.state.bytes, declaredMaxBytes: want.max_bytes, keptMaxBytes: maxBytes },
      'stream stores too much for its declared byte limit: limit not lowered (the server would delete the oldest messages); applied at a later start',
    );
  }
  if (
    sameSubjects(have.subjects ?? [], want.subjects) &&
    have.duplicate_window === want.duplicate_window &&
    have.max_age === want.max_age &&
    have.max_bytes === maxBytes &&
    have.discard === want.discard
  ) {
    return;
  }
  await jsm.streams.update(want.name, {
    ...have,
    subjects: want.subjects,
    duplicate_window: want.duplicate_window,
    max_age: want.max_age,
    max_bytes: maxBytes,
    discard: want.discard,
  });
  logger.info({ stream: want.name, maxBytes, discard: want.discard }, 'stream config updated');
}

/** Stored bytes must stay under this share of a new limit for it to be applied (room for publishes racing the update). */
const LIMIT_HEADROOM = 0.9;

/**
 * The byte limit an update of an existing stream sets (decision 0026). Lowering `max_bytes` below
 * what a stream stores makes the server delete its oldest messages at once, whatever the discard
 * policy (nats-server 2.9, checked by jetstream-bus.int-spec.ts), so a stream created before its
 * limit, or given a smaller one, gets the declared limit only while it stores under 90 % of it;
 * otherwise it keeps its current limit and a later start applies it once enough has aged out.
 * Raising or removing a limit (-1) is always applied.
 */
export function appliedMaxBytes(declared: number, current: number | undefined, storedBytes: number): number {
  const lowering = declared > 0 && (current === undefined || current <= 0 || declared < current);
  if (!lowering || storedBytes <= declared * LIMIT_HEADROOM) return declared;
  return current ?? -1;
}

export function desiredConsumerConfig(ns: Namespace, def: ConsumerDefinition): Partial<ConsumerConfig> {
  return {
    durable_name: ns.durable(def.durable),
    ack_policy: AckPolicy.Explicit,
    deliver_policy: DeliverPolicy.All,
    replay_policy: ReplayPolicy.Instant,
    filter_subject: ns.subject(def.filterSubject ?? def.event.subject),
    ack_wait: nanos(def.ackWaitMs),
    max_deliver: serverMaxDeliver(def.maxDeliver),
    max_ack_pending: def.maxAckPending,
  };
}

export async function ensureConsumer(jsm: JetStreamManager, ns: Namespace, def: ConsumerDefinition): Promise<{ stream: string; durable: string }> {
  const stream = ns.stream(def.event.stream);
  const want = desiredConsumerConfig(ns, def);
  const durable = want.durable_name as string;
  try {
    await jsm.consumers.add(stream, want);
  } catch (error) {
    if (!isApiError(error)) throw error;
    // Exists with another config (or a concurrent create): update the fields we own.
    await jsm.consumers.info(stream, durable);
    await jsm.consumers.update(stream, durable, {
      ack_wait: want.ack_wait,
      max_deliver: want.max_deliver,
      max_ack_pending: want.max_ack_pending,
      filter_subject: want.filter_subject,
    });
  }
  return { stream, durable };
}
