/**
 * Stream and durable-consumer provisioning (decision 0033). The provisioning step — `npm run
 * nats:provision` / the Kubernetes Job nats-provision under its own NATS user, the launcher and the
 * test harnesses in embedded and test modes — creates a missing stream or sets an existing one to
 * exactly its declared config (deploy/nats/streams, stream-files.ts): fields the declaration does
 * not set go back to the server default, so a limit, a subject or a republish someone added does
 * not survive. Services never create or update a stream: at start they `verifyStream` and refuse
 * to start when it differs. Idempotent and safe to race: a concurrent create surfaces as "already
 * in use", treated as "someone else created it" and followed by compare-and-update.
 */
import { JetStreamApiError, jetstreamManager, type ConsumerConfig, type JetStreamManager, type StreamConfig } from '@nats-io/jetstream';
import { StreamConfigMismatchError } from '../errors.js';
import type { BusLogger } from '../logger.js';
import type { ConsumerDefinition } from '../port.js';
import { Namespace } from '../subjects.js';
import { openConnection } from './connection.js';
import type { NatsAuth } from './nats-auth.js';
import { consumerConfigOf, namespacedConsumer, namespacedStream, streamDifferences, type ConsumerConfigJson, type StreamConfigJson, type StreamFile } from './stream-files.js';

/** JetStream API error codes we tolerate (nats-server errors.json). */
const STREAM_NOT_FOUND = 10059;
const STREAM_NAME_IN_USE = 10058;
const CONSUMER_NOT_FOUND = 10014;

function isApiError(error: unknown, code?: number): error is JetStreamApiError {
  return error instanceof JetStreamApiError && (code === undefined || error.code === code);
}


/**
 * The provisioning step for one stream (wire names already namespaced): create it, or set it to
 * exactly `want` (every field `want` leaves out is removed, so the server default applies). The
 * byte limit follows appliedMaxBytes.
 */
export async function provisionStream(jsm: JetStreamManager, want: StreamConfigJson, logger: BusLogger): Promise<void> {
  let info;
  try {
    info = await jsm.streams.info(want.name);
  } catch (error) {
    if (!isApiError(error, STREAM_NOT_FOUND)) throw error;
    try {
      await jsm.streams.add(want as unknown as StreamConfig);
      await expectReplicas(jsm, want);
      logger.info({ stream: want.name, replicas: want.num_replicas }, 'stream created');
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
      'stream stores too much for its declared byte limit: limit not lowered (the server would delete the oldest messages); applied at a later provisioning',
    );
  }
  const target: StreamConfigJson = { ...want, max_bytes: maxBytes };
  const differences = streamDifferences(have, target, 'exact');
  const found = have as unknown as Record<string, unknown>;
  if (differences.length === 0 && have.description === target.description) return;
  // The client merges the update into the live config (jsmstream_api update): every live field the
  // declaration does not set is sent as undefined, so JSON drops it and the server default applies.
  const update: Record<string, unknown> = Object.fromEntries(Object.keys(found).map((key) => [key, undefined]));
  Object.assign(update, target);
  try {
    await jsm.streams.update(want.name, update as Partial<StreamConfig>);
  } catch (error) {
    // e.g. a republish, the storage or a mirror: the server changes them only at create.
    if (!isApiError(error)) throw error;
    throw new Error(
      `stream ${want.name}: the server refuses to set it to its declaration (${error.message}; differences: ${differences.join('; ')}): check its messages, delete the stream (nats stream rm ${want.name}) and provision again`,
      { cause: error },
    );
  }
  await expectReplicas(jsm, want);
  logger.info({ stream: want.name, maxBytes, differences }, 'stream config updated to its declaration');
}

/** How long the read-back waits for a cluster to place a created or rescaled stream. */
const PLACEMENT_WAIT_MS = 15_000;

/**
 * Reads the stream back: the server holds the declared number of copies (config and placement).
 * A replica count that did not reach the server (a field the client does not send, a cluster that
 * placed fewer peers) stops the provisioning step instead of leaving a single-copy stream behind.
 * A cluster moving a rescaled stream answers "not found" or fewer peers for a moment: polled.
 */
async function expectReplicas(jsm: JetStreamManager, want: StreamConfigJson): Promise<void> {
  const deadline = Date.now() + PLACEMENT_WAIT_MS;
  for (;;) {
    let held = 'no stream';
    try {
      const info = await jsm.streams.info(want.name);
      const configured = info.config.num_replicas ?? 1;
      // On a cluster the leader plus its peers; a single server may report no placement for R1.
      const placed = info.cluster?.leader ? 1 + (info.cluster.replicas?.length ?? 0) : 1;
      if (configured === want.num_replicas && (want.num_replicas === 1 || placed === want.num_replicas)) return;
      held = `num_replicas ${configured} on ${placed} servers`;
      // The server kept another count than it was sent: no wait changes that.
      if (configured !== want.num_replicas) throw new Error(`stream ${want.name}: declared with ${want.num_replicas} replicas, the server holds ${held}`);
    } catch (error) {
      if (!isApiError(error, STREAM_NOT_FOUND)) throw error;
    }
    if (Date.now() > deadline) throw new Error(`stream ${want.name}: declared with ${want.num_replicas} replicas, the server holds ${held} after ${PLACEMENT_WAIT_MS} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** A service's check at start (wire names already namespaced): throws StreamConfigMismatchError. */
export async function verifyStream(jsm: JetStreamManager, want: StreamConfigJson): Promise<void> {
  let info;
  try {
    info = await jsm.streams.info(want.name);
  } catch (error) {
    if (isApiError(error, STREAM_NOT_FOUND)) throw new StreamConfigMismatchError(want.name, []);
    throw error;
  }
  const differences = streamDifferences(info.config, want, 'at-least');
  if (differences.length > 0) throw new StreamConfigMismatchError(want.name, differences);
}

/** The durable fields a provisioning step owns, compared and set. */
const CONSUMER_FIELDS = ['filter_subject', 'ack_wait', 'max_deliver', 'max_ack_pending'] as const;

/** The provisioning step for one durable (wire names already namespaced): create it, or update what differs. */
export async function provisionConsumer(jsm: JetStreamManager, stream: string, want: ConsumerConfigJson, logger: BusLogger): Promise<void> {
  let have: ConsumerConfig | undefined;
  try {
    have = (await jsm.consumers.info(stream, want.durable_name)).config;
  } catch (error) {
    if (!isApiError(error, CONSUMER_NOT_FOUND)) throw error;
  }
  if (!have) {
    try {
      await jsm.consumers.add(stream, want as unknown as Partial<ConsumerConfig>);
      logger.info({ stream, durable: want.durable_name }, 'durable consumer created');
      return;
    } catch (error) {
      // A concurrent create (another process of the same service, or the provisioning step) won:
      // compare with what it created and update the fields we own.
      if (!isApiError(error)) throw error;
      have = (await jsm.consumers.info(stream, want.durable_name)).config;
    }
  }
  const found = have as unknown as Record<string, unknown>;
  const declared = want as unknown as Record<string, unknown>;
  const differing = CONSUMER_FIELDS.filter((field) => found[field] !== declared[field]);
  if (differing.length === 0) return;
  await jsm.consumers.update(stream, want.durable_name, Object.fromEntries(differing.map((field) => [field, declared[field]])));
  logger.info({ stream, durable: want.durable_name, fields: differing }, 'durable consumer updated to its declaration');
}

/** The whole provisioning step: every stream of `files`, then its durables, in namespace `ns`. */
export async function provisionStreamFiles(jsm: JetStreamManager, ns: Namespace, files: Iterable<StreamFile>, logger: BusLogger): Promise<{ streams: number; consumers: number }> {
  let streams = 0;
  let consumers = 0;
  for (const file of files) {
    const stream = namespacedStream(file.stream, ns);
    await provisionStream(jsm, stream, logger);
    streams++;
    for (const consumer of file.consumers) {
      await provisionConsumer(jsm, stream.name, namespacedConsumer(consumer, ns), logger);
      consumers++;
    }
  }
  return { streams, consumers };
}

export interface ProvisionOptions {
  servers: string | readonly string[];
  /** The provisioning step's own NATS user (deploy/nats/nats-server.conf `provisioner`). */
  auth?: NatsAuth;
  namespace: string;
  logger: BusLogger;
  /** Retry the first connect (the Job may start before NATS answers). */
  waitOnFirstConnect?: boolean;
}

/** `npm run nats:provision` and the Job nats-provision: one connection, every file, closed again. */
export async function provisionJetStream(options: ProvisionOptions, files: Iterable<StreamFile>): Promise<{ streams: number; consumers: number }> {
  const conn = await openConnection({ servers: options.servers, name: 'switchyard-nats-provision', auth: options.auth, logger: options.logger, waitOnFirstConnect: options.waitOnFirstConnect });
  try {
    return await provisionStreamFiles(await jetstreamManager(conn.nc), new Namespace(options.namespace), files, options.logger);
  } finally {
    await conn.close();
  }
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

/**
 * A service's own durable at consume: the provisioning step's `provisionConsumer` — created if
 * missing (the provisioning step normally has), else updated where its process's settings differ
 * (INGEST_ACK_WAIT_MS, tests' tuning). Its NATS user may do this for its own durables only, each
 * with its own filter subject (deploy/nats/nats-server.conf).
 */
export async function ensureConsumer(jsm: JetStreamManager, ns: Namespace, def: ConsumerDefinition, logger: BusLogger): Promise<{ stream: string; durable: string }> {
  const stream = ns.stream(def.event.stream);
  const want = namespacedConsumer(consumerConfigOf(def), ns);
  await provisionConsumer(jsm, stream, want, logger);
  return { stream, durable: want.durable_name };
}
