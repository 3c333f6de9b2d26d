/**
 * The one name authority: every subject, stream, durable and RPC endpoint of Switchyard is declared
 * here with its zod schema and version, and nowhere else. Names here are logical; a bus adds its
 * namespace at the wire (`<ns>.` before subjects, `<NS>_` before stream and durable names), so
 * parallel test runs and the embedded launcher never collide on one NATS server.
 * Invariant: publisher and consumer import the same entry, so both parse with the same schema.
 */
import type { EventDefinition, RpcDefinition, StreamDefinition } from './port.js';
import { connectionConfigV1 } from './schemas/connection-config.v1.js';
import { applicationGrantV1 } from './schemas/application-grant.v1.js';
import { deadLetterV1 } from './schemas/dead-letter.v1.js';
import { pingRequestV1, pingResponseV1 } from './schemas/ping.v1.js';
import { createSyncRequestV1, listSyncsReplyV1, listSyncsRequestV1, syncByIdRequestV1, syncReplyV1 } from './schemas/sync-api.v1.js';

const MINUTE_MS = 60_000;
const DAY_MS = 24 * 60 * MINUTE_MS;

/** 2 minutes: the JetStream default, long enough to cover a publisher's retry after a lost ack. */
export const DUPLICATE_WINDOW_MS = 2 * MINUTE_MS;

export const STREAMS = {
  /** Normalized batches from collectors to the owning contexts: `ingest.<context>.<connectionId>`. */
  INGEST: { name: 'INGEST', subjects: ['ingest.>'], duplicateWindowMs: DUPLICATE_WINDOW_MS, maxAgeMs: 7 * DAY_MS },
  /** Per-unit receipts from contexts back to the orchestrator: `receipt.<syncId>.<unitId>`. */
  RECEIPTS: { name: 'RECEIPTS', subjects: ['receipt.>'], duplicateWindowMs: DUPLICATE_WINDOW_MS, maxAgeMs: 7 * DAY_MS },
  /** Domain events: connection configuration, vehicle events. */
  EVENTS: { name: 'EVENTS', subjects: ['events.>'], duplicateWindowMs: DUPLICATE_WINDOW_MS, maxAgeMs: 30 * DAY_MS },
  /** Fault transitions for internal consumers: `fleet.faults.<connectionId>.<opened|cleared>`. */
  FAULTS: { name: 'FAULTS', subjects: ['fleet.faults.>'], duplicateWindowMs: DUPLICATE_WINDOW_MS, maxAgeMs: 30 * DAY_MS },
  /** Dead letters: kept 90 days so an operator can inspect and replay after a fix. */
  DLQ: { name: 'DLQ', subjects: ['dlq.>'], duplicateWindowMs: DUPLICATE_WINDOW_MS, maxAgeMs: 90 * DAY_MS },
} as const satisfies Record<string, StreamDefinition>;

export const ALL_STREAMS: readonly StreamDefinition[] = Object.values(STREAMS);

export const EVENTS = {
  connectionConfigChanged: {
    subject: 'events.connection.config.*',
    stream: STREAMS.EVENTS.name,
    schema: connectionConfigV1,
    version: 1,
  },
  /** `events.credentials.application.<applicationId>`: grants and credential version (gateway → sync-orchestrator). */
  applicationGrantChanged: {
    subject: 'events.credentials.application.*',
    stream: STREAMS.EVENTS.name,
    schema: applicationGrantV1,
    version: 1,
  },
  /** `dlq.<stream lower-case>.<durable>`; see `deadLetterSubject`. */
  deadLetter: { subject: 'dlq.*.*', stream: STREAMS.DLQ.name, schema: deadLetterV1, version: 1 },
} as const satisfies Record<string, EventDefinition>;

function pingRpc(context: string): RpcDefinition<typeof pingRequestV1, typeof pingResponseV1> {
  return { subject: `${context}.ping`, request: pingRequestV1, response: pingResponseV1 };
}

/** Subject prefix of each context's request/reply endpoints. */
export const CONTEXT_PREFIXES = {
  gateway: 'gateway',
  syncOrchestrator: 'sync',
  directory: 'directory',
  telemetryIngest: 'telemetry',
  faultFeed: 'faults',
  enrichment: 'enrichment',
} as const;

export const RPCS = {
  ping: {
    gateway: pingRpc(CONTEXT_PREFIXES.gateway),
    syncOrchestrator: pingRpc(CONTEXT_PREFIXES.syncOrchestrator),
    directory: pingRpc(CONTEXT_PREFIXES.directory),
    telemetryIngest: pingRpc(CONTEXT_PREFIXES.telemetryIngest),
    faultFeed: pingRpc(CONTEXT_PREFIXES.faultFeed),
    enrichment: pingRpc(CONTEXT_PREFIXES.enrichment),
  },
  /** The public sync lifecycle (spec 4.1), gateway → sync-orchestrator. */
  sync: {
    create: { subject: 'sync.create', request: createSyncRequestV1, response: syncReplyV1 },
    list: { subject: 'sync.list', request: listSyncsRequestV1, response: listSyncsReplyV1 },
    get: { subject: 'sync.get', request: syncByIdRequestV1, response: syncReplyV1 },
    retry: { subject: 'sync.retry', request: syncByIdRequestV1, response: syncReplyV1 },
    cancel: { subject: 'sync.cancel', request: syncByIdRequestV1, response: syncReplyV1 },
  },
} as const;

const TOKEN = /^[A-Za-z0-9_-]+$/;

/** Fills the `*` tokens of a pattern in order; each token must be one plain subject token. */
export function subjectFor(pattern: string, ...tokens: string[]): string {
  const parts = pattern.split('.');
  const wildcards = parts.filter((p) => p === '*').length;
  if (wildcards !== tokens.length) {
    throw new TypeError(`subject ${pattern} has ${wildcards} '*' tokens, got ${tokens.length} values`);
  }
  let next = 0;
  return parts
    .map((part) => {
      if (part !== '*') return part;
      const token = tokens[next++] as string;
      if (!TOKEN.test(token)) throw new TypeError(`invalid subject token "${token}" for ${pattern}`);
      return token;
    })
    .join('.');
}

/** NATS wildcard match: `*` is one token, a final `>` one or more. */
export function subjectMatches(pattern: string, subject: string): boolean {
  const p = pattern.split('.');
  const s = subject.split('.');
  for (let i = 0; i < p.length; i++) {
    if (p[i] === '>') return s.length > i;
    if (i >= s.length) return false;
    if (p[i] !== '*' && p[i] !== s[i]) return false;
  }
  return p.length === s.length;
}

/** Where a durable's dead letters go: `dlq.<stream lower-case>.<durable>`. */
export function deadLetterSubject(stream: string, durable: string): string {
  return subjectFor(EVENTS.deadLetter.subject, stream.toLowerCase(), durable);
}

/** The stream that captures a logical subject, if any. */
export function streamForSubject(streams: Iterable<StreamDefinition>, subject: string): StreamDefinition | undefined {
  for (const stream of streams) if (stream.subjects.some((p) => subjectMatches(p, subject))) return stream;
  return undefined;
}

const NAMESPACE = /^([a-z0-9][a-z0-9-]*)?$/;
const NAME = /^[A-Za-z0-9_-]+$/;

/**
 * Maps logical names to wire names for one namespace. An empty namespace maps names to themselves
 * (production); `t1a2b3` maps `events.x` → `t1a2b3.events.x` and `EVENTS` → `T1A2B3_EVENTS`.
 */
export class Namespace {
  private readonly subjectPrefix: string;
  private readonly namePrefix: string;

  constructor(readonly value: string) {
    if (!NAMESPACE.test(value)) throw new TypeError(`namespace must be lower-case letters, digits or '-', got "${value}"`);
    this.subjectPrefix = value ? `${value}.` : '';
    this.namePrefix = value ? `${value.toUpperCase().replaceAll('-', '_')}_` : '';
  }

  subject(logical: string): string {
    return this.subjectPrefix + logical;
  }

  /** Wire subject back to logical; subjects outside the namespace are returned unchanged. */
  strip(wire: string): string {
    return wire.startsWith(this.subjectPrefix) ? wire.slice(this.subjectPrefix.length) : wire;
  }

  stream(logical: string): string {
    return this.name(logical);
  }

  durable(logical: string): string {
    return this.name(logical);
  }

  private name(logical: string): string {
    if (!NAME.test(logical)) throw new TypeError(`stream/durable names are letters, digits, '_' or '-', got "${logical}"`);
    return this.namePrefix + logical;
  }
}
