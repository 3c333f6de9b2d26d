/**
 * The operator's view of the dead-letter stream (`DLQ`, subjects `dlq.<stream>.<durable>`, kept 90
 * days), whatever stores it: list dead letters by original subject (NATS wildcards), reason,
 * consumer and time range, inspect one, replay it, or discard it (issues 14 and 30). One engine for
 * both of its users — the `npm run dlq` CLI (apps/gateway/src/cli/dlq.ts, over its own NATS
 * connection: `DeadLetterStore`) and the operator console (apps/gateway/src/console, over the
 * gateway's bus: `MessageBus.deadLetters()`) — on either log: JetStream's DLQ stream
 * (jetstream/dead-letters.ts) or the in-process broker's (in-process/in-process-bus.ts).
 *
 * Replay publishes the stored original bytes to the original subject (every durable on it gets the
 * message again; consumers are idempotent by design — the ingest ledger, configuration revisions)
 * with the msgId `dlq-replay:<DLQ stream>:<dlq sequence>`, then deletes the dead letter. So a replay
 * is idempotent: a second replay of the same dead letter finds it gone and publishes nothing, and a
 * replay interrupted between publish and delete is de-duplicated by the stream's duplicate window
 * when run again. Discard deletes the dead letter without publishing it. Nothing here logs a payload.
 */
import type { z } from 'zod';
import { DEAD_LETTER_DETAIL_CHARS, type DeadLetterSummaryV1, type discardOutcomeV1, type replayOutcomeV1 } from './schemas/dead-letter-ops.v1.js';
import { deadLetterV1, type DeadLetterV1 } from './schemas/dead-letter.v1.js';
import { subjectMatches } from './subjects.js';

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
  /** Sequence in the DLQ stream: the dead letter's id for inspect, replay and discard. */
  seq: number;
  storedAt: string;
  envelope: DeadLetterV1;
}

export type ReplayOutcome = z.output<typeof replayOutcomeV1>;
export type DiscardOutcome = z.output<typeof discardOutcomeV1>;

/** One stored DLQ message as the log hands it out: its sequence, store time and raw bytes. */
export interface DeadLetterRecord {
  seq: number;
  storedAt: Date;
  data: Uint8Array;
}

/** What the engine needs of a log: JetStream's DLQ stream, or the in-process broker's. */
export interface DeadLetterLog {
  /** The DLQ stream's name as the log knows it (namespaced on JetStream), for the replay msgId. */
  readonly streamName: string;
  /** Stored messages oldest first, from `from` on; the walk may stop early (the caller breaks). */
  scan(from: Date | undefined): AsyncIterable<DeadLetterRecord>;
  get(seq: number): Promise<DeadLetterRecord | undefined>;
  /** Removes one message; false when it was not there. */
  remove(seq: number): Promise<boolean>;
  /** Publishes raw bytes to a subject (without the bus namespace) with a msgId, durably. */
  publishRaw(subject: string, data: Uint8Array, headers: Record<string, string>, msgId: string): Promise<void>;
}

const decoder = new TextDecoder();

function parse(record: DeadLetterRecord): StoredDeadLetter | undefined {
  let json: unknown;
  try {
    json = JSON.parse(decoder.decode(record.data));
  } catch {
    return undefined;
  }
  const parsed = deadLetterV1.safeParse(json);
  return parsed.success ? { seq: record.seq, storedAt: record.storedAt.toISOString(), envelope: parsed.data } : undefined;
}

function matches(envelope: DeadLetterV1, filter: DeadLetterFilter): boolean {
  if (filter.subject && !subjectMatches(filter.subject, envelope.originalSubject)) return false;
  if (filter.reason && envelope.reason !== filter.reason) return false;
  if (filter.consumer && envelope.consumer !== filter.consumer) return false;
  return true;
}

/** The stored original bytes of a dead letter (see dead-letter.v1.ts: UTF-8 text or base64). */
export function originalBytes(envelope: DeadLetterV1): Uint8Array {
  return envelope.payloadEncoding === 'utf8' ? new TextEncoder().encode(envelope.payload) : new Uint8Array(Buffer.from(envelope.payload, 'base64'));
}

/** The size of the stored original bytes, without decoding them. */
function payloadBytes(envelope: DeadLetterV1): number {
  return Buffer.byteLength(envelope.payload, envelope.payloadEncoding === 'utf8' ? 'utf8' : 'base64');
}

/**
 * A dead letter as a list shows it (the CLI's `list`, the role's `dead-letters.list` reply): every
 * envelope field but the payload, whose size is given instead; the detail cut to
 * DEAD_LETTER_DETAIL_CHARS (with an ellipsis), so a list stays small whatever a handler wrote.
 */
export function summaryOf({ seq, storedAt, envelope }: StoredDeadLetter): DeadLetterSummaryV1 {
  const { payload: _payload, detail, ...rest } = envelope;
  const cut = detail !== undefined && detail.length > DEAD_LETTER_DETAIL_CHARS ? `${detail.slice(0, DEAD_LETTER_DETAIL_CHARS - 1)}…` : detail;
  return { seq, storedAt, envelope: { ...rest, ...(cut === undefined ? {} : { detail: cut }) }, payloadBytes: payloadBytes(envelope) };
}

export class DeadLetters {
  constructor(private readonly log: DeadLetterLog) {}

  /** Dead letters matching `filter`, oldest first (entries that are not dead-letter envelopes are skipped). */
  async list(filter: DeadLetterFilter = {}): Promise<StoredDeadLetter[]> {
    const limit = filter.limit ?? 1000;
    const found: StoredDeadLetter[] = [];
    for await (const record of this.log.scan(filter.from)) {
      if (filter.to && record.storedAt.getTime() >= filter.to.getTime()) break;
      const letter = parse(record);
      if (letter && matches(letter.envelope, filter)) found.push(letter);
      if (found.length >= limit) break;
    }
    return found;
  }

  /** One dead letter by its DLQ sequence, or undefined. */
  async get(seq: number): Promise<StoredDeadLetter | undefined> {
    const record = await this.log.get(seq);
    return record && parse(record);
  }

  /** Replays one dead letter (see the header); `not_found` when it is gone (replayed, discarded or expired). */
  async replay(seq: number): Promise<ReplayOutcome> {
    const letter = await this.get(seq);
    if (!letter) return { seq, outcome: 'not_found' };
    const { envelope } = letter;
    await this.log.publishRaw(envelope.originalSubject, originalBytes(envelope), { 'x-dlq-replay-of': String(seq) }, `dlq-replay:${this.log.streamName}:${seq}`);
    await this.log.remove(seq);
    return { seq, outcome: 'replayed', subject: envelope.originalSubject };
  }

  /** Deletes one dead letter without publishing it; `not_found` when it is gone already. */
  async discard(seq: number): Promise<DiscardOutcome> {
    const letter = await this.get(seq);
    if (!letter || !(await this.log.remove(seq))) return { seq, outcome: 'not_found' };
    return { seq, outcome: 'discarded', subject: letter.envelope.originalSubject };
  }
}
