/**
 * The declarative stream files, deploy/nats/streams/<stream>.json: one per stream, its JetStream
 * stream config and the durable consumers on it, in the server's own JSON (durations in
 * nanoseconds). Generated from the name authority (STREAMS, CONSUMERS, CONSUMED_BY in
 * subjects.ts) by `npm run nats:streams`; stream-files.spec.ts fails when the committed files are
 * stale. The provisioning step applies them (provisioning.ts, decision 0033); a service compares
 * the live stream with the same config at start and refuses to start when it differs.
 */
import type { StreamConfig } from '@nats-io/jetstream';
import { nanos } from '@nats-io/transport-node';
import type { ConsumerDefinition, StreamDefinition } from '../port.js';
import { ALL_STREAMS, Namespace, provisionedConsumers } from '../subjects.js';
import { serverMaxDeliver } from './settlement.js';

/** A stream's JetStream config as the files hold it: every limit explicit, nothing else enabled. */
export interface StreamConfigJson {
  name: string;
  description?: string;
  subjects: string[];
  retention: 'limits';
  storage: 'file';
  discard: 'new' | 'old';
  max_age: number;
  duplicate_window: number;
  max_msgs: number;
  max_bytes: number;
  max_msg_size: number;
  max_msgs_per_subject: number;
  max_consumers: number;
  num_replicas: number;
  sealed: boolean;
  deny_delete: boolean;
  deny_purge: boolean;
  allow_rollup_hdrs: boolean;
  allow_direct: boolean;
  mirror_direct: boolean;
}

/** A durable pull consumer's JetStream config (its name starts with its consuming service's). */
export interface ConsumerConfigJson {
  durable_name: string;
  ack_policy: 'explicit';
  deliver_policy: 'all';
  replay_policy: 'instant';
  filter_subject: string;
  ack_wait: number;
  max_deliver: number;
  max_ack_pending: number;
}

export interface StreamFile {
  stream: StreamConfigJson;
  consumers: ConsumerConfigJson[];
}

/** The stream config a definition stands for (logical names; `namespaced` adds the prefix). */
export function streamConfigOf(def: StreamDefinition): StreamConfigJson {
  return {
    name: def.name,
    ...(def.description === undefined ? {} : { description: def.description }),
    subjects: [...def.subjects],
    retention: 'limits',
    storage: 'file',
    discard: def.discard ?? 'old',
    max_age: nanos(def.maxAgeMs ?? 0),
    duplicate_window: nanos(def.duplicateWindowMs),
    max_msgs: -1,
    // No limit is -1 on the wire.
    max_bytes: def.maxBytes ?? -1,
    max_msg_size: -1,
    max_msgs_per_subject: -1,
    max_consumers: -1,
    // The server reads num_replicas only: a config spelling it `replicas` silently gives one copy.
    num_replicas: def.replicas ?? 1,
    sealed: false,
    deny_delete: false,
    deny_purge: false,
    allow_rollup_hdrs: false,
    allow_direct: false,
    mirror_direct: false,
  };
}

/** A durable's config (logical names). */
export function consumerConfigOf(def: ConsumerDefinition): ConsumerConfigJson {
  return {
    durable_name: def.durable,
    ack_policy: 'explicit',
    deliver_policy: 'all',
    replay_policy: 'instant',
    filter_subject: def.filterSubject ?? def.event.subject,
    ack_wait: nanos(def.ackWaitMs),
    max_deliver: serverMaxDeliver(def.maxDeliver),
    max_ack_pending: def.maxAckPending,
  };
}

/** File name → content of deploy/nats/streams, from the code's tables (`streams` for other byte limits). */
export function streamFiles(streams: readonly StreamDefinition[] = ALL_STREAMS): Map<string, StreamFile> {
  const consumers = provisionedConsumers();
  return new Map(
    streams.map((def) => [
      `${def.name.toLowerCase()}.json`,
      {
        stream: streamConfigOf(def),
        consumers: consumers
          .filter(({ consumer }) => consumer.event.stream === def.name)
          .map(({ consumer }) => consumerConfigOf(consumer))
          .sort((a, b) => a.durable_name.localeCompare(b.durable_name)),
      },
    ]),
  );
}

/** The file's text exactly as committed (2-space JSON, final newline). */
export function streamFileText(file: StreamFile): string {
  return `${JSON.stringify(file, null, 2)}\n`;
}

/** Wire names of one namespace: `<NS>_` before stream and durable names, `<ns>.` before subjects. */
export function namespacedStream(config: StreamConfigJson, ns: Namespace): StreamConfigJson {
  return { ...config, name: ns.stream(config.name), subjects: config.subjects.map((s) => ns.subject(s)) };
}

export function namespacedConsumer(config: ConsumerConfigJson, ns: Namespace): ConsumerConfigJson {
  return { ...config, durable_name: ns.durable(config.durable_name), filter_subject: ns.subject(config.filter_subject) };
}

/** Fields compared one to one (missing booleans read as false). */
const COMPARED = ['retention', 'storage', 'discard', 'max_age', 'duplicate_window', 'max_msgs', 'max_msg_size', 'max_msgs_per_subject', 'max_consumers', 'sealed', 'deny_delete', 'deny_purge', 'allow_rollup_hdrs'] as const;
/** Features no declared stream uses: present on a live stream, each is a difference (a republish leaks every message). */
const FORBIDDEN = ['republish', 'mirror', 'sources', 'subject_transform', 'subject_transforms'] as const;

const show = (value: unknown): string => (value === undefined ? 'unset' : JSON.stringify(value));

/**
 * How the live stream `have` differs from `want`, one line per field ("max_msgs is 1, expected
 * -1"). `maxBytes: 'at-least'` (a service's check) accepts a larger byte limit than declared: the
 * provisioning step keeps a larger one while the stream stores more than the declared limit
 * (appliedMaxBytes); 'exact' (the provisioning step's own comparison) does not.
 */
export function streamDifferences(have: StreamConfig | StreamConfigJson, want: StreamConfigJson, maxBytes: 'exact' | 'at-least'): string[] {
  const found = have as unknown as Record<string, unknown>;
  const declared = want as unknown as Record<string, unknown>;
  const differences: string[] = [];
  const sorted = (list: readonly string[] | undefined) => [...(list ?? [])].sort();
  if (JSON.stringify(sorted(have.subjects)) !== JSON.stringify(sorted(want.subjects))) {
    differences.push(`subjects are ${show(have.subjects ?? [])}, expected ${show(want.subjects)}`);
  }
  for (const field of COMPARED) {
    const live = typeof declared[field] === 'boolean' ? (found[field] ?? false) : found[field];
    if (live !== declared[field]) differences.push(`${field} is ${show(live)}, expected ${show(declared[field])}`);
  }
  for (const field of FORBIDDEN) {
    const live = found[field];
    if (live !== undefined && live !== null && !(Array.isArray(live) && live.length === 0)) differences.push(`${field} is ${show(live)}, expected unset`);
  }
  const liveBytes = have.max_bytes ?? -1;
  const unlimited = (n: number) => n <= 0;
  const bytesOk =
    maxBytes === 'exact' ? liveBytes === want.max_bytes : unlimited(liveBytes) ? true : !unlimited(want.max_bytes) && liveBytes >= want.max_bytes;
  if (!bytesOk) differences.push(`max_bytes is ${liveBytes}, expected ${maxBytes === 'exact' ? '' : 'at least '}${want.max_bytes}`);
  // Replicas (decision 0034): the provisioning step sets exactly the declared count; a service
  // accepts more copies than it was configured with, never fewer (a stream it expects on three
  // servers that lives on one loses its messages with that server).
  const liveReplicas = have.num_replicas ?? 1;
  const replicasOk = maxBytes === 'exact' ? liveReplicas === want.num_replicas : liveReplicas >= want.num_replicas;
  if (!replicasOk) differences.push(`num_replicas is ${liveReplicas}, expected ${maxBytes === 'exact' ? '' : 'at least '}${want.num_replicas}`);
  return differences;
}
