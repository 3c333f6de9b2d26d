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
    discard: DiscardPolicy.Old,
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
  if (
    sameSubjects(have.subjects ?? [], want.subjects) &&
    have.duplicate_window === want.duplicate_window &&
    have.max_age === want.max_age
  ) {
    return;
  }
  await jsm.streams.update(want.name, {
    ...have,
    subjects: want.subjects,
    duplicate_window: want.duplicate_window,
    max_age: want.max_age,
  });
  logger.info({ stream: want.name }, 'stream config updated');
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
