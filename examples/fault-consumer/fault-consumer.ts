// A fault-transition consumer a platform team can copy (docs/faults.md, asyncapi/asyncapi.json):
// a durable JetStream pull consumer on `fleet.faults.>` with explicit acks, one message in flight
// (per-connection `sequence` order is kept), a checkpoint of the highest sequence applied per
// connection (so a redelivery after a crash between your work and the ack is dropped, never
// applied twice), and a replay of the whole stream from its start.
//
// TypeScript with erasable syntax only (Node 24 runs it as is), on the official NATS client
// (@nats-io/transport-node, @nats-io/jetstream); the
// payload is parsed with the tolerant v1 schema (`faultTransitionConsumerV1`: unknown fields are
// kept and ignored, as the versioning rule asks). Outside this repository, copy that schema or
// validate with the payload JSON Schema of asyncapi/asyncapi.json.
//
// Your `checkpoint` should live where your work lives (the same database transaction that opens
// or closes the service case), so "applied" and "checkpointed" never disagree. The default is in
// memory: it survives a reconnect of this process, not a restart.
import { AckPolicy, DeliverPolicy, jetstream, jetstreamManager, JetStreamApiError, type JsMsg } from '@nats-io/jetstream';
import { connect, nanos } from '@nats-io/transport-node';
import { faultTransitionConsumerV1, type FaultTransitionConsumerV1 } from '@switchyard/messaging';

export interface FaultCloudEvent {
  specversion: string | undefined;
  id: string | undefined;
  source: string | undefined;
  type: string | undefined;
  time: string | undefined;
  subject: string | undefined;
  datacontenttype: string | undefined;
  data: FaultTransitionConsumerV1;
}

/** Where the highest applied sequence per connection is kept. */
export interface Checkpoint {
  get(connectionId: string): number | Promise<number>;
  set(connectionId: string, sequence: number): void | Promise<void>;
}

export type TransitionHandler = (transition: FaultTransitionConsumerV1, event: FaultCloudEvent) => unknown;

export interface FaultConsumerOptions {
  servers: string | string[];
  durable: string;
  stream?: string;
  subjects?: string;
  checkpoint?: Checkpoint;
  handle: TransitionHandler;
  onGap?: (connectionId: string, expected: number, got: number) => unknown;
  ackWaitMs?: number;
}

export interface RunningFaultConsumer {
  stop(): Promise<void>;
  kill(): Promise<void>;
}

/** The CloudEvents 1.0 view of one message (binary mode: the attributes are `ce-*` headers). */
function cloudEventOf(msg: JsMsg, data: FaultTransitionConsumerV1): FaultCloudEvent {
  const h = (name: string) => msg.headers?.get(name) || undefined;
  return {
    specversion: h('ce-specversion'),
    id: h('ce-id'),
    source: h('ce-source'),
    type: h('ce-type'),
    time: h('ce-time'),
    subject: h('ce-subject'),
    datacontenttype: h('content-type'),
    data,
  };
}

/** An in-memory checkpoint (replace it with a durable one). */
export class MemoryCheckpoint implements Checkpoint {
  #last = new Map<string, number>();
  get(connectionId: string): number {
    return this.#last.get(connectionId) ?? 0;
  }
  set(connectionId: string, sequence: number): void {
    this.#last.set(connectionId, sequence);
  }
}

/**
 * Starts (or resumes) the durable consumer `durable`. `handle(transition, cloudEvent)` is awaited
 * for each transition after the connection's checkpoint; the message is acknowledged after it
 * returns and the checkpoint moved. A `handle` that throws leaves the message unacknowledged: it
 * is redelivered after `ackWaitMs`. `onGap(connectionId, expected, got)` is called when a
 * connection's sequence jumps (events older than the stream's retention, or a consumer started
 * late): read GET /v1/connections/{id}/faults to resynchronize.
 */
export async function startFaultConsumer({ servers, durable, stream = 'FAULTS', subjects = 'fleet.faults.>', checkpoint = new MemoryCheckpoint(), handle, onGap = () => undefined, ackWaitMs = 30_000 }: FaultConsumerOptions): Promise<RunningFaultConsumer> {
  const nc = await connect({ servers, name: `fault-consumer-${durable}` });
  const jsm = await jetstreamManager(nc);
  const config = { durable_name: durable, ack_policy: AckPolicy.Explicit, deliver_policy: DeliverPolicy.All, filter_subject: subjects, max_ack_pending: 1, ack_wait: nanos(ackWaitMs) };
  try {
    await jsm.consumers.add(stream, config);
  } catch (error) {
    // It exists already (a restart): resume where its acknowledgements stopped.
    if (!(error instanceof JetStreamApiError)) throw error;
    await jsm.consumers.info(stream, durable);
  }
  const consumer = await jetstream(nc).consumers.get(stream, durable);
  const messages = await consumer.consume({ max_messages: 16 });
  const loop = (async () => {
    for await (const msg of messages) {
      const transition = faultTransitionConsumerV1.parse(msg.json());
      const last = await checkpoint.get(transition.connectionId);
      if (transition.sequence > last) {
        if (last > 0 && transition.sequence > last + 1) await onGap(transition.connectionId, last + 1, transition.sequence);
        try {
          await handle(transition, cloudEventOf(msg, transition));
        } catch {
          continue; // not acknowledged: redelivered after ackWaitMs
        }
        await checkpoint.set(transition.connectionId, transition.sequence);
      }
      // An already-applied sequence (a redelivery) is only acknowledged.
      await msg.ackAck().catch(() => false);
    }
  })();
  return {
    /** Stops after the message in hand; unacknowledged messages are redelivered to the next start. */
    async stop() {
      messages.stop();
      await loop;
      await nc.drain();
    },
    /** Drops the connection at once, as a crash does: nothing in flight is acknowledged, the handler in hand is abandoned. */
    async kill() {
      loop.catch(() => undefined);
      await nc.close();
    },
  };
}

/**
 * Replays every transition the stream still holds, from its start, in stream order, through an
 * ordered (ephemeral) consumer — no durable state is touched. Resolves when it has caught up.
 */
export async function replayFaultTransitions({ servers, stream = 'FAULTS', subjects = 'fleet.faults.>', handle }: { servers: string | string[]; stream?: string; subjects?: string; handle: TransitionHandler }): Promise<number> {
  const nc = await connect({ servers, name: 'fault-consumer-replay' });
  try {
    const consumer = await jetstream(nc).consumers.get(stream, { filter_subjects: subjects, deliver_policy: DeliverPolicy.All });
    if ((await consumer.info()).num_pending === 0) return 0;
    let count = 0;
    const messages = await consumer.consume();
    for await (const msg of messages) {
      const transition = faultTransitionConsumerV1.parse(msg.json());
      await handle(transition, cloudEventOf(msg, transition));
      count++;
      if (msg.info.pending === 0) break;
    }
    return count;
  } finally {
    await nc.drain();
  }
}
