/**
 * The operator's view of the dead-letter stream (`DLQ`, subjects `dlq.<stream>.<durable>`, kept 90
 * days): list and inspect dead letters by original subject (NATS wildcards), reason, consumer and
 * time range, and replay them (issue 14; the CLI is apps/gateway/src/cli/dlq.ts).
 *
 * Replay publishes the stored original bytes to the original subject (every durable on it gets the
 * message again; consumers are idempotent by design — the ingest ledger, configuration revisions)
 * with the msgId `dlq-replay:<dlq sequence>`, then deletes the dead letter from the DLQ. So a
 * replay is idempotent: a second replay of the same dead letter finds it gone and publishes
 * nothing, and a replay interrupted between publish and delete is de-duplicated by JetStream's
 * duplicate window when run again. Nothing here logs a payload.
 */
import { jetstream, jetstreamManager, type JetStreamClient, type JetStreamManager } from '@nats-io/jetstream';
import { headers as natsHeaders } from '@nats-io/transport-node';
import { deadLetterV1, type DeadLetterV1 } from '../schemas/dead-letter.v1.js';
import type { BusLogger } from '../logger.js';
import { Namespace, STREAMS, subjectMatches } from '../subjects.js';
import { openConnection, type TrackedConnection } from './connection.js';
import type { NatsAuth } from './nats-auth.js';

export interface DeadLetterFilter {
  /** Original subject or a NATS pattern of it (`ingest.directory.*`, `events.>`). */
  subject?: string;
  reason?: string;
  consumer?: string;
  /** Stored at or after this instant. */
  from?: Date;
  /** Stored before this instant. */
  to?: Date;
  /** At most this many (default 1000). */
  limit?: number;
}

export interface StoredDeadLetter {
  /** Sequence in the DLQ stream: the dead letter's id for inspect and replay. */
  seq: number;
  storedAt: string;
  envelope: DeadLetterV1;
}

export type ReplayOutcome = { seq: number; outcome: 'replayed'; subject: string } | { seq: number; outcome: 'not_found' };

export interface DeadLetterStoreOptions {
  servers: string | readonly string[];
  namespace: string;
  auth?: NatsAuth;
  logger: BusLogger;
}

export class DeadLetterStore {
  private constructor(
    private readonly conn: TrackedConnection,
    private readonly js: JetStreamClient,
    private readonly jsm: JetStreamManager,
    private readonly ns: Namespace,
  ) {}

  static async open(options: DeadLetterStoreOptions): Promise<DeadLetterStore> {
    const conn = await openConnection({ servers: options.servers, name: 'switchyard-dlq', auth: options.auth, logger: options.logger });
    try {
      return new DeadLetterStore(conn, jetstream(conn.nc), await jetstreamManager(conn.nc), new Namespace(options.namespace));
    } catch (error) {
      await conn.close();
      throw error;
    }
  }

  private get stream(): string {
    return this.ns.stream(STREAMS.DLQ.name);
  }

  /** Dead letters matching `filter`, oldest first. */
  async list(filter: DeadLetterFilter = {}): Promise<StoredDeadLetter[]> {
    const limit = filter.limit ?? 1000;
    const info = await this.jsm.streams.info(this.stream).catch(() => undefined);
    if (!info || info.state.messages === 0) return [];
    const consumer = await this.js.consumers.get(this.stream, filter.from ? { opt_start_time: filter.from.toISOString() } : {});
    const found: StoredDeadLetter[] = [];
    try {
      for (;;) {
        const m = await consumer.next({ expires: 1000 });
        if (!m) break;
        const stored = { seq: m.seq, storedAt: new Date(Math.floor(m.info.timestampNanos / 1e6)).toISOString() };
        const parsed = deadLetterV1.safeParse(JSON.parse(new TextDecoder().decode(m.data)));
        const pending = m.info.pending;
        if (filter.to && Date.parse(stored.storedAt) >= filter.to.getTime()) break;
        if (parsed.success && matches(parsed.data, filter)) found.push({ ...stored, envelope: parsed.data });
        if (found.length >= limit || pending === 0) break;
      }
    } finally {
      await consumer.delete().catch(() => undefined);
    }
    return found;
  }

  /** One dead letter by its DLQ sequence, or undefined. */
  async get(seq: number): Promise<StoredDeadLetter | undefined> {
    const m = await this.jsm.streams.getMessage(this.stream, { seq }).catch(() => undefined);
    if (!m) return undefined;
    const parsed = deadLetterV1.safeParse(JSON.parse(new TextDecoder().decode(m.data)));
    return parsed.success ? { seq, storedAt: m.time.toISOString(), envelope: parsed.data } : undefined;
  }

  /** Replays one dead letter (see the header); `not_found` when it is gone (already replayed or expired). */
  async replay(seq: number): Promise<ReplayOutcome> {
    const letter = await this.get(seq);
    if (!letter) return { seq, outcome: 'not_found' };
    const { envelope } = letter;
    const data = envelope.payloadEncoding === 'utf8' ? new TextEncoder().encode(envelope.payload) : Buffer.from(envelope.payload, 'base64');
    const h = natsHeaders();
    h.set('x-dlq-replay-of', String(seq));
    await this.js.publish(this.ns.subject(envelope.originalSubject), data, { headers: h, msgID: `dlq-replay:${this.stream}:${seq}` });
    await this.jsm.streams.deleteMessage(this.stream, seq, false).catch(() => undefined);
    return { seq, outcome: 'replayed', subject: envelope.originalSubject };
  }

  close(): Promise<void> {
    return this.conn.close();
  }
}

function matches(envelope: DeadLetterV1, filter: DeadLetterFilter): boolean {
  if (filter.subject && !subjectMatches(filter.subject, envelope.originalSubject)) return false;
  if (filter.reason && envelope.reason !== filter.reason) return false;
  if (filter.consumer && envelope.consumer !== filter.consumer) return false;
  return true;
}
