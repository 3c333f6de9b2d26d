/**
 * The in-memory "server" behind the in-process bus: streams with a msgId duplicate window, durable
 * consumers with ack-wait timers, redelivery, maxAckPending and a server-side delivery cap, and the
 * RPC queue groups. One broker per namespace is shared by every in-process bus of that namespace
 * (every app of the embedded launcher), and lives while at least one of them is open — like a
 * NATS server with memory storage.
 * Invariants (mirroring JetStream): a message stays pending until acked or terminated; pending
 * messages count against maxAckPending, including ones waiting for a nak delay, so maxAckPending 1
 * keeps per-subject order; redeliveries go out before new messages, lowest sequence first.
 */
import { BusUnavailableError } from '../errors.js';
import type { ConsumerDefinition, StreamDefinition } from '../port.js';
import { serverMaxDeliver } from '../jetstream/settlement.js';
import { subjectMatches } from '../subjects.js';

export interface StoredMessage {
  seq: number;
  subject: string;
  data: Uint8Array;
  headers: Record<string, string>;
  msgId: string | undefined;
  at: number;
}

interface StreamState {
  def: StreamDefinition;
  messages: StoredMessage[];
  /** Sum of `storedSize` over `messages`, against the stream's maxBytes. */
  bytes: number;
  lastSeq: number;
  /** msgId → seq and time stored; insertion order is time order, so pruning walks from the front. */
  dedupe: Map<string, { seq: number; at: number }>;
}

interface PendingEntry {
  deliveryCount: number;
  /** Waiting to be (re)delivered: ack wait expired or nak delay passed. */
  ready: boolean;
  timer: NodeJS.Timeout | undefined;
}

export interface DurableMember {
  deliver(message: StoredMessage, deliveryCount: number): void;
}

export interface DurableState {
  def: ConsumerDefinition;
  stream: string;
  filter: string;
  /** Highest stream sequence ever handed out. */
  cursor: number;
  pending: Map<number, PendingEntry>;
  members: DurableMember[];
  next: number;
}

export type RpcEndpoint = (data: Uint8Array, headers: Record<string, string>) => Promise<Uint8Array>;

export class Broker {
  readonly streams = new Map<string, StreamState>();
  readonly durables = new Map<string, DurableState>();
  readonly rpc = new Map<string, { endpoints: RpcEndpoint[]; next: number }>();
  refs = 0;

  ensureStream(def: StreamDefinition): void {
    const existing = this.streams.get(def.name);
    if (existing) existing.def = def;
    else this.streams.set(def.name, { def, messages: [], bytes: 0, lastSeq: 0, dedupe: new Map() });
  }

  findStream(subject: string): StreamState | undefined {
    for (const stream of this.streams.values()) if (stream.def.subjects.some((p) => subjectMatches(p, subject))) return stream;
    return undefined;
  }

  store(stream: StreamState, subject: string, data: Uint8Array, headers: Record<string, string>, msgId: string): { seq: number; duplicate: boolean } {
    const now = Date.now();
    for (const [id, entry] of stream.dedupe) {
      if (now - entry.at < stream.def.duplicateWindowMs) break;
      stream.dedupe.delete(id);
    }
    const seen = stream.dedupe.get(msgId);
    if (seen) return { seq: seen.seq, duplicate: true };
    const maxAge = stream.def.maxAgeMs;
    if (maxAge) while (stream.messages.length > 0 && now - (stream.messages[0] as StoredMessage).at > maxAge) this.dropOldest(stream);
    const size = storedSize(subject, data, headers);
    const { maxBytes, discard } = stream.def;
    if (maxBytes !== undefined && stream.bytes + size > maxBytes) {
      // The JetStream rules (decision 0026): `new` refuses and keeps everything, `old` makes room.
      if (discard === 'new') throw new BusUnavailableError(subject, 'stream_full');
      while (stream.messages.length > 0 && stream.bytes + size > maxBytes) this.dropOldest(stream);
    }
    const seq = ++stream.lastSeq;
    stream.messages.push({ seq, subject, data, headers, msgId, at: now });
    stream.bytes += size;
    stream.dedupe.set(msgId, { seq, at: now });
    for (const durable of this.durables.values()) if (durable.stream === stream.def.name) this.pump(durable);
    return { seq, duplicate: false };
  }

  private dropOldest(stream: StreamState): void {
    const oldest = stream.messages.shift();
    if (oldest) stream.bytes -= storedSize(oldest.subject, oldest.data, oldest.headers);
  }

  upsertDurable(def: ConsumerDefinition, filter: string): DurableState {
    const key = `${def.event.stream}/${def.durable}`;
    const existing = this.durables.get(key);
    if (existing) {
      existing.def = def;
      existing.filter = filter;
      return existing;
    }
    const created: DurableState = { def, stream: def.event.stream, filter, cursor: 0, pending: new Map(), members: [], next: 0 };
    this.durables.set(key, created);
    return created;
  }

  /** A stored message by sequence (binary search: sequences ascend, with gaps where one was removed). */
  findMessage(streamName: string, seq: number): StoredMessage | undefined {
    const messages = this.streams.get(streamName)?.messages ?? [];
    const at = indexOfSeq(messages, seq);
    return at < 0 ? undefined : messages[at];
  }

  /** Deletes one message (JetStream's STREAM.MSG.DELETE); a durable that had it pending drops it at its next delivery. */
  remove(streamName: string, seq: number): boolean {
    const stream = this.streams.get(streamName);
    const at = stream ? indexOfSeq(stream.messages, seq) : -1;
    if (!stream || at < 0) return false;
    const [removed] = stream.messages.splice(at, 1) as [StoredMessage];
    stream.bytes -= storedSize(removed.subject, removed.data, removed.headers);
    return true;
  }


  private startAckTimer(durable: DurableState, seq: number, entry: PendingEntry, ms: number): void {
    clearTimeout(entry.timer);
    entry.timer = setTimeout(() => {
      entry.timer = undefined;
      // The server's own cap (ours + spare): past it the message is given up, as JetStream does.
      if (entry.deliveryCount >= serverMaxDeliver(durable.def.maxDeliver)) durable.pending.delete(seq);
      else entry.ready = true;
      this.pump(durable);
    }, ms);
    entry.timer.unref();
  }

  /** Hands out work while members exist: ready redeliveries first, then new messages up to maxAckPending. */
  pump(durable: DurableState): void {
    while (durable.members.length > 0) {
      let seq: number | undefined;
      for (const [s, entry] of durable.pending) if (entry.ready && (seq === undefined || s < seq)) seq = s;
      if (seq === undefined) {
        if (durable.pending.size >= durable.def.maxAckPending) return;
        const stream = this.streams.get(durable.stream);
        const candidate = stream?.messages.find((m) => m.seq > durable.cursor && subjectMatches(durable.filter, m.subject));
        if (!candidate) return;
        durable.cursor = candidate.seq;
        seq = candidate.seq;
        durable.pending.set(seq, { deliveryCount: 0, ready: true, timer: undefined });
      }
      const entry = durable.pending.get(seq) as PendingEntry;
      const message = this.findMessage(durable.stream, seq);
      if (!message) {
        durable.pending.delete(seq); // aged out of the stream
        continue;
      }
      entry.ready = false;
      entry.deliveryCount += 1;
      this.startAckTimer(durable, seq, entry, durable.def.ackWaitMs);
      const member = durable.members[durable.next++ % durable.members.length] as DurableMember;
      member.deliver(message, entry.deliveryCount);
    }
  }

  /** The durable's backlog as JetStream's consumer info counts it; undefined when no such durable exists. */
  state(def: ConsumerDefinition): { pending: number; ackPending: number; redelivered: number } | undefined {
    const durable = this.durables.get(`${def.event.stream}/${def.durable}`);
    if (!durable) return undefined;
    const messages = this.streams.get(durable.stream)?.messages ?? [];
    const pending = messages.filter((m) => m.seq > durable.cursor && subjectMatches(durable.filter, m.subject)).length;
    const redelivered = [...durable.pending.values()].filter((entry) => entry.deliveryCount > 1).length;
    return { pending, ackPending: durable.pending.size, redelivered };
  }

  /** Ack or term: the message leaves the pending set for good. */
  settle(durable: DurableState, seq: number): void {
    const entry = durable.pending.get(seq);
    if (!entry) return;
    clearTimeout(entry.timer);
    durable.pending.delete(seq);
    this.pump(durable);
  }

  nak(durable: DurableState, seq: number, deliveryCount: number, delayMs: number): void {
    const entry = durable.pending.get(seq);
    if (!entry || entry.deliveryCount !== deliveryCount) return; // stale: already redelivered
    this.startAckTimer(durable, seq, entry, Math.max(0, delayMs));
  }

  working(durable: DurableState, seq: number, deliveryCount: number): void {
    const entry = durable.pending.get(seq);
    if (entry && entry.deliveryCount === deliveryCount && !entry.ready) this.startAckTimer(durable, seq, entry, durable.def.ackWaitMs);
  }

  shutdown(): void {
    for (const durable of this.durables.values()) for (const entry of durable.pending.values()) clearTimeout(entry.timer);
  }
}

function indexOfSeq(messages: readonly StoredMessage[], seq: number): number {
  let [lo, hi] = [0, messages.length - 1];
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const at = (messages[mid] as StoredMessage).seq;
    if (at === seq) return mid;
    if (at < seq) lo = mid + 1;
    else hi = mid - 1;
  }
  return -1;
}

/** A message's size against maxBytes: subject, headers and payload, as JetStream counts it (less its fixed per-message overhead). */
function storedSize(subject: string, data: Uint8Array, headers: Record<string, string>): number {
  let size = subject.length + data.length;
  for (const [name, value] of Object.entries(headers)) size += name.length + value.length + 4;
  return size;
}

const brokers = new Map<string, Broker>();

export function acquireBroker(namespace: string): Broker {
  let broker = brokers.get(namespace);
  if (!broker) brokers.set(namespace, (broker = new Broker()));
  broker.refs += 1;
  return broker;
}

export function releaseBroker(namespace: string, broker: Broker): void {
  broker.refs -= 1;
  if (broker.refs > 0 || brokers.get(namespace) !== broker) return;
  broker.shutdown();
  brokers.delete(namespace);
}
