/**
 * The dead-letter engine (../dead-letters.ts) on JetStream's DLQ stream: `jetStreamDeadLetterLog`
 * reads it with an ordered ephemeral consumer (deleted after each walk), gets and deletes single
 * messages by sequence through the stream API, and publishes replays with the JetStream client.
 * `DeadLetterStore` is the engine on a NATS connection of its own, for the `npm run dlq` CLI (its
 * own credentials, issue 14); a running service reaches the same engine on its bus connection
 * through `MessageBus.deadLetters()` (the operator console, issue 30).
 */
import { jetstream, jetstreamManager, type JetStreamClient, type JetStreamManager } from '@nats-io/jetstream';
import { headers as natsHeaders } from '@nats-io/transport-node';
import { DeadLetters, type DeadLetterLog, type DeadLetterRecord } from '../dead-letters.js';
import type { BusLogger } from '../logger.js';
import { Namespace, STREAMS } from '../subjects.js';
import { openConnection, type TrackedConnection } from './connection.js';
import type { NatsAuth } from './nats-auth.js';

export { type DeadLetterFilter, type DiscardOutcome, type ReplayOutcome, type StoredDeadLetter } from '../dead-letters.js';

/** The DLQ stream of namespace `ns` as a dead-letter log, on an open JetStream client and manager. */
export function jetStreamDeadLetterLog(js: JetStreamClient, jsm: JetStreamManager, ns: Namespace): DeadLetterLog {
  const stream = ns.stream(STREAMS.DLQ.name);
  return {
    streamName: stream,
    async *scan(from) {
      const info = await jsm.streams.info(stream).catch(() => undefined);
      if (!info || info.state.messages === 0) return;
      const consumer = await js.consumers.get(stream, from ? { opt_start_time: from.toISOString() } : {});
      try {
        for (;;) {
          const m = await consumer.next({ expires: 1000 });
          if (!m) return;
          const pending = m.info.pending;
          yield { seq: m.seq, storedAt: new Date(Math.floor(m.info.timestampNanos / 1e6)), data: m.data } satisfies DeadLetterRecord;
          if (pending === 0) return;
        }
      } finally {
        await consumer.delete().catch(() => undefined);
      }
    },
    async get(seq) {
      const m = await jsm.streams.getMessage(stream, { seq }).catch(() => undefined);
      return m ? { seq, storedAt: m.time, data: m.data } : undefined;
    },
    async remove(seq) {
      return jsm.streams.deleteMessage(stream, seq, false).catch(() => false);
    },
    async publishRaw(subject, data, headers, msgId) {
      const h = natsHeaders();
      for (const [name, value] of Object.entries(headers)) h.set(name, value);
      await js.publish(ns.subject(subject), data, { headers: h, msgID: msgId });
    },
  };
}

export interface DeadLetterStoreOptions {
  servers: string | readonly string[];
  namespace: string;
  auth?: NatsAuth;
  logger: BusLogger;
}

/** The dead-letter engine on a NATS connection of its own (the dlq CLI); close it when done. */
export class DeadLetterStore extends DeadLetters {
  private constructor(
    private readonly conn: TrackedConnection,
    log: DeadLetterLog,
  ) {
    super(log);
  }

  static async open(options: DeadLetterStoreOptions): Promise<DeadLetterStore> {
    const conn = await openConnection({ servers: options.servers, name: 'switchyard-dlq', auth: options.auth, logger: options.logger });
    try {
      return new DeadLetterStore(conn, jetStreamDeadLetterLog(jetstream(conn.nc), await jetstreamManager(conn.nc), new Namespace(options.namespace)));
    } catch (error) {
      await conn.close();
      throw error;
    }
  }

  close(): Promise<void> {
    return this.conn.close();
  }
}
