/**
 * The one name authority: every request/reply subject, durable subject, stream and durable
 * consumer of Switchyard is declared here with its zod schema and version, and nowhere else (the
 * rest of the library holds schemas and message-id helpers, never a name). A reader scans the
 * four tables below — STREAMS, EVENTS, RPCS, CONSUMERS — in one screen. Names here are logical; a
 * bus adds its namespace at the wire (`<ns>.` before subjects, `<NS>_` before stream and durable
 * names), so parallel test runs and the embedded launcher never collide on one NATS server.
 * Handlers bind to these entries with Nest's `@MessagePattern(RPCS.….subject)` and
 * `@EventPattern(CONSUMERS.….durable)` (the bus transport in libs/service-kit resolves the name
 * back to its entry here, so a pattern that is not declared here fails at start).
 * Invariant: publisher and consumer import the same entry, so both parse with the same schema.
 */
import type { z } from 'zod';
import type { ConsumerDefinition, EventDefinition, RpcDefinition, StreamDefinition } from './port.js';
import { applicationGrantV1 } from './schemas/application-grant.v1.js';
import { connectionConfigV1 } from './schemas/connection-config.v1.js';
import { connectionHealthV1 } from './schemas/connection-health.v1.js';
import { deadLetterV1 } from './schemas/dead-letter.v1.js';
import { deadLetterActionRequestV1, discardOutcomeV1, listDeadLettersReplyV1, listDeadLettersRequestV1, replayOutcomeV1 } from './schemas/dead-letter-ops.v1.js';
import { getVehicleProfileReplyV1, getVehicleProfileRequestV1, vehicleVinChangedV1 } from './schemas/enrichment-read.v1.js';
import { getDriverReplyV1, getDriverRequestV1, listDriversReplyV1, listDriversRequestV1 } from './schemas/directory-read-drivers.v1.js';
import { getGroupReplyV1, getGroupRequestV1, groupInventoryReplyV1, groupInventoryRequestV1, listGroupDirectoryReplyV1, listGroupDirectoryRequestV1 } from './schemas/directory-read-groups.v1.js';
import { getTripReplyV1, getTripRequestV1, listTripsReplyV1, listTripsRequestV1 } from './schemas/directory-read-trips.v1.js';
import { getVehicleMetadataReplyV1, getVehicleMetadataRequestV1, getVehicleReplyV1, getVehicleRequestV1, listVehiclesReplyV1, listVehiclesRequestV1 } from './schemas/directory-read-vehicles.v1.js';
import { directoryBatchV1, faultBatchV1, telemetryBatchV1 } from './schemas/ingest-batch.v1.js';
import { faultsObservedV1 } from './schemas/fault-observation.v1.js';
import { listFaultEventsReplyV1, listFaultEventsRequestV1, listOpenFaultsReplyV1, listOpenFaultsRequestV1 } from './schemas/fault-read.v1.js';
import { faultTransitionV1 } from './schemas/ingest-fault-transition.v1.js';
import { pingRequestV1, pingResponseV1 } from './schemas/ping.v1.js';
import { providerAccessReplyV1, providerAccessRequestV1 } from './schemas/provider-credentials.v1.js';
import { receiptV1 } from './schemas/receipt.v1.js';
import { createSyncRequestV1, listSyncsReplyV1, listSyncsRequestV1, syncByIdRequestV1, syncReplyV1 } from './schemas/sync-api.v1.js';
import { operatorRunsReplyV1, operatorRunsRequestV1 } from './schemas/operator-runs.v1.js';
import { historyReplyV1, historyRequestV1, latestTelemetryReplyV1, latestTelemetryRequestV1, listLocationsReplyV1, listLocationsRequestV1 } from './schemas/telemetry-read.v1.js';
import { connectionFreshnessReplyV1, connectionFreshnessRequestV1 } from './schemas/telemetry-freshness.v1.js';
import { usageCounterReplyV1, usageCounterRequestV1, usageFleetReplyV1, usageFleetRequestV1, usageUtilizationReplyV1, usageUtilizationRequestV1 } from './schemas/usage-report.v1.js';
import { refreshVehicleReplyV1, refreshVehicleRequestV1 } from './schemas/vehicle-refresh.v1.js';
import { vehicleVisibilityChangedV1 } from './schemas/vehicle-visibility.v1.js';
import { connectionStatusChangedV1 } from './schemas/connection-status.v1.js';
import { syncOutcomeV1 } from './schemas/sync-outcome.v1.js';
import { webhookEndpointDisabledV1 } from './schemas/webhook.v1.js';

const MINUTE_MS = 60_000;
const DAY_MS = 24 * 60 * MINUTE_MS;

/** 2 minutes: the JetStream default, long enough to cover a publisher's retry after a lost ack. */
export const DUPLICATE_WINDOW_MS = 2 * MINUTE_MS;

const MIB = 1024 * 1024;

const stream = (name: string, description: string, subject: string, maxAgeDays: number, maxBytes: number): StreamDefinition => ({
  name,
  description,
  subjects: [subject],
  duplicateWindowMs: DUPLICATE_WINDOW_MS,
  maxAgeMs: maxAgeDays * DAY_MS,
  maxBytes,
  // Every stream refuses a publish when full rather than dropping its oldest messages
  // (docs/decisions/0026-stream-byte-limits.md): a refused publish is a retry-later for its
  // publisher, a dropped message is data nobody knows is gone.
  discard: 'new',
});

/**
 * Streams: what each captures, how long it keeps it and the most bytes it stores (the default of
 * NATS_STREAM_MAX_BYTES_<NAME>, docs/configuration.md; sized in decision 0026).
 */
export const STREAMS = {
  /** Normalized batches, collectors → owning contexts. */
  INGEST: stream('INGEST', 'Normalized collection batches, collector (sync-orchestrator) -> owning context: ingest.<context>.<connectionId>', 'ingest.>', 7, 1024 * MIB),
  /** Per-batch receipts, contexts → orchestrator. */
  RECEIPTS: stream('RECEIPTS', 'Per-unit data receipts, context -> sync-orchestrator, sent after commit: receipt.<syncId>.<unitId>', 'receipt.>', 7, 128 * MIB),
  /** Domain events: connection configuration and status, grants, health, vehicle visibility, sync outcomes, webhook endpoints. */
  EVENTS: stream('EVENTS', 'Domain events: connection configuration (events.connection.config.<connectionId>), vehicle roster, VIN and visibility', 'events.>', 30, 256 * MIB),
  /** Fault transitions for internal consumers. */
  FAULTS: stream('FAULTS', 'Fault transitions for internal consumers: fleet.faults.<connectionId>.opened|cleared', 'fleet.faults.>', 30, 256 * MIB),
  /** Dead letters: kept 90 days so an operator can inspect and replay after a fix. */
  DLQ: stream('DLQ', 'Dead letters with a reason header: dlq.<stream lower-case>.<durable>; kept for inspection and replay', 'dlq.>', 90, 512 * MIB),
} as const satisfies Record<string, StreamDefinition>;

export type StreamName = keyof typeof STREAMS;

/**
 * The streams with a deployment's byte limits (NATS_STREAM_MAX_BYTES_<NAME>) and replicas
 * (NATS_STREAM_REPLICAS[_<NAME>]) in place of the defaults above; a stream not named keeps its
 * default (no replicas given: one copy).
 */
export function withStreamLimits(limits: Partial<Record<StreamName, number>>, replicas: Partial<Record<StreamName, number>> = {}): StreamDefinition[] {
  return (Object.keys(STREAMS) as StreamName[]).map((name) => {
    const maxBytes = limits[name];
    const copies = replicas[name];
    return { ...STREAMS[name], ...(maxBytes === undefined ? {} : { maxBytes }), ...(copies === undefined ? {} : { replicas: copies }) };
  });
}

export const ALL_STREAMS: readonly StreamDefinition[] = Object.values(STREAMS);

/** Durable subjects (`*` = one token, filled by `subjectFor`): subject, stream, payload schema, version. */
export const EVENTS = {
  /** gateway → every context's configuration projection; `<connectionId>`. */
  connectionConfigChanged: { subject: 'events.connection.config.*', stream: 'EVENTS', schema: connectionConfigV1, version: 1 },
  /** gateway → sync-orchestrator: grants and credential version; `<applicationId>`. */
  applicationGrantChanged: { subject: 'events.credentials.application.*', stream: 'EVENTS', schema: applicationGrantV1, version: 1 },
  /** gateway → webhook delivery: a connection's status changed (schemas/connection-status.v1.ts); `<connectionId>`. */
  connectionStatus: { subject: 'events.connection.status.*', stream: 'EVENTS', schema: connectionStatusChangedV1, version: 1 },
  /** sync-orchestrator → webhook delivery: a public sync completed or failed (schemas/sync-outcome.v1.ts); `<connectionId>`. */
  syncOutcome: { subject: 'events.sync.outcome.*', stream: 'EVENTS', schema: syncOutcomeV1, version: 1 },
  /** webhook delivery → record: an endpoint was disabled (410, or failing for the disable window; schemas/webhook.v1.ts); `<applicationId>`. */
  webhookEndpointDisabled: { subject: 'events.webhook.disabled.*', stream: 'EVENTS', schema: webhookEndpointDisabledV1, version: 1 },
  /** collectors → gateway (connection row), directory (dataset status); `<connectionId>`. */
  connectionHealth: { subject: 'events.connection.health.*', stream: 'EVENTS', schema: connectionHealthV1, version: 1 },
  /** directory → telemetry-ingest, fault-feed: the hidden-vehicle set; `<connectionId>`. */
  vehicleVisibility: { subject: 'events.vehicle.visibility.*', stream: 'EVENTS', schema: vehicleVisibilityChangedV1, version: 1 },
  /** directory → enrichment: a stored vehicle's VIN, first stored or changed (schemas/enrichment-read.v1.ts); `<connectionId>`. */
  vehicleVin: { subject: 'events.vehicle.vin.*', stream: 'EVENTS', schema: vehicleVinChangedV1, version: 1 },
  /** fault-feed → telemetry-ingest: when faults of each vehicle of a batch were last observed; `<connectionId>`. */
  faultsObserved: { subject: 'events.faults.observed.*', stream: 'EVENTS', schema: faultsObservedV1, version: 1 },
  /** collectors → directory: vehicles, drivers, groups, trips; `<connectionId>`. */
  directoryBatch: { subject: 'ingest.directory.*', stream: 'INGEST', schema: directoryBatchV1, version: 1 },
  /** collectors → telemetry-ingest: observations; `<connectionId>`. */
  telemetryBatch: { subject: 'ingest.telemetry.*', stream: 'INGEST', schema: telemetryBatchV1, version: 1 },
  /** collectors → fault-feed: fault snapshots or records; `<connectionId>`. */
  faultBatch: { subject: 'ingest.faults.*', stream: 'INGEST', schema: faultBatchV1, version: 1 },
  /** a context committed (or rejected) one batch → orchestrator; `<syncId>.<unitId>`. */
  receipt: { subject: 'receipt.*.*', stream: 'RECEIPTS', schema: receiptV1, version: 1 },
  /** fault-feed → internal consumers; `<connectionId>.<opened|cleared>`. */
  faultTransition: { subject: 'fleet.faults.*.*', stream: 'FAULTS', schema: faultTransitionV1, version: 1 },
  /** dead letters; `<stream lower-case>.<durable>` (see `deadLetterSubject`). */
  deadLetter: { subject: 'dlq.*.*', stream: 'DLQ', schema: deadLetterV1, version: 1 },
} as const satisfies Record<string, EventDefinition>;

const rpc = <Req extends RpcDefinition['request'], Res extends RpcDefinition['response']>(subject: string, request: Req, response: Res) => ({ subject, request, response }) as const;
const ping = (prefix: string) => rpc(`${prefix}.ping`, pingRequestV1, pingResponseV1);

/** Subject prefix of each context's request/reply endpoints, by service name. */
export const SUBJECT_PREFIXES = {
  gateway: 'gateway',
  'sync-orchestrator': 'sync',
  directory: 'directory',
  'telemetry-ingest': 'telemetry',
  'fault-feed': 'faults',
  enrichment: 'enrichment',
} as const;

/** Request/reply endpoints (core NATS, at most once): subject, request schema, response schema. */
export const RPCS = {
  /** `<prefix>.ping` per context: up and ready (a handler binds the template `{context}.ping`). */
  ping: {
    gateway: ping('gateway'),
    syncOrchestrator: ping('sync'),
    directory: ping('directory'),
    telemetryIngest: ping('telemetry'),
    faultFeed: ping('faults'),
    enrichment: ping('enrichment'),
  },
  /** The public sync lifecycle (spec 4.1), gateway → sync-orchestrator. */
  sync: {
    create: rpc('sync.create', createSyncRequestV1, syncReplyV1),
    list: rpc('sync.list', listSyncsRequestV1, listSyncsReplyV1),
    get: rpc('sync.get', syncByIdRequestV1, syncReplyV1),
    retry: rpc('sync.retry', syncByIdRequestV1, syncReplyV1),
    cancel: rpc('sync.cancel', syncByIdRequestV1, syncReplyV1),
  },
  /** The operator console's view of a connection's runs, gateway → sync-orchestrator (schemas/operator-runs.v1.ts; not a public route). */
  operator: { runs: rpc('sync.operator.runs', operatorRunsRequestV1, operatorRunsReplyV1) },
  /**
   * The dead-letter operations, gateway (the operator console) → the gateway's dead-letter role
   * (schemas/dead-letter-ops.v1.ts, decision 0046): its NATS user alone reads the DLQ stream and
   * publishes replays; the gateway's may send these three requests and nothing else of the DLQ.
   * Not under `dlq.>` (the DLQ stream would capture them) nor `gateway.>` (the gateway user subscribes there).
   */
  deadLetters: {
    list: rpc('dead-letters.list', listDeadLettersRequestV1, listDeadLettersReplyV1),
    replay: rpc('dead-letters.replay', deadLetterActionRequestV1, replayOutcomeV1),
    discard: rpc('dead-letters.discard', deadLetterActionRequestV1, discardOutcomeV1),
  },
  /** On-demand collection, gateway → sync-orchestrator (spec 4.4 refresh; schemas/vehicle-refresh.v1.ts). */
  collection: { refresh: rpc('sync.collection.refresh', refreshVehicleRequestV1, refreshVehicleReplyV1) },
  /** Collectors → gateway: a connection's provider credentials (restricted subject, docs/deploy.md). */
  gateway: { providerAccess: rpc('gateway.connection.provider-access', providerAccessRequestV1, providerAccessReplyV1) },
  /** Stored reads, gateway → directory (spec 4.2). */
  directory: {
    trips: { list: rpc('directory.read.trips.list', listTripsRequestV1, listTripsReplyV1), get: rpc('directory.read.trips.get', getTripRequestV1, getTripReplyV1) },
    vehicles: {
      list: rpc('directory.read.vehicles.list', listVehiclesRequestV1, listVehiclesReplyV1),
      get: rpc('directory.read.vehicles.get', getVehicleRequestV1, getVehicleReplyV1),
      metadata: rpc('directory.read.vehicles.metadata', getVehicleMetadataRequestV1, getVehicleMetadataReplyV1),
    },
    drivers: { list: rpc('directory.read.drivers.list', listDriversRequestV1, listDriversReplyV1), get: rpc('directory.read.drivers.get', getDriverRequestV1, getDriverReplyV1) },
    groups: {
      directory: rpc('directory.read.groups.directory', listGroupDirectoryRequestV1, listGroupDirectoryReplyV1),
      inventory: rpc('directory.read.groups.inventory', groupInventoryRequestV1, groupInventoryReplyV1),
      get: rpc('directory.read.groups.get', getGroupRequestV1, getGroupReplyV1),
    },
  },
  /** Fault reads, gateway → fault-feed (spec 2.9, 4.4, 6; schemas/fault-read.v1.ts). */
  faults: {
    open: rpc('faults.read.open', listOpenFaultsRequestV1, listOpenFaultsReplyV1),
    events: rpc('faults.read.events', listFaultEventsRequestV1, listFaultEventsReplyV1),
  },
  /** Stored telemetry reads, gateway → telemetry-ingest (spec 2.10, 4.2 locations, 4.4; schemas/telemetry-read.v1.ts). */
  telemetry: {
    latest: rpc('telemetry.read.latest', latestTelemetryRequestV1, latestTelemetryReplyV1),
    locations: rpc('telemetry.read.locations', listLocationsRequestV1, listLocationsReplyV1),
    history: rpc('telemetry.read.history', historyRequestV1, historyReplyV1),
    /** Data freshness per signal of one connection (issue 27, beyond the 36 operations; schemas/telemetry-freshness.v1.ts). */
    freshness: rpc('telemetry.read.freshness', connectionFreshnessRequestV1, connectionFreshnessReplyV1),
    /** Usage reports (spec 2.10 Counter/Utilization, 4.4; schemas/usage-report.v1.ts; docs/metrics.md). */
    usage: {
      counter: rpc('telemetry.read.usage.counter', usageCounterRequestV1, usageCounterReplyV1),
      utilization: rpc('telemetry.read.usage.utilization', usageUtilizationRequestV1, usageUtilizationReplyV1),
      fleet: rpc('telemetry.read.usage.fleet', usageFleetRequestV1, usageFleetReplyV1),
    },
  },
  /** Vehicle enrichment reads, gateway → enrichment (spec 2.4, 4.2; schemas/enrichment-read.v1.ts). */
  enrichment: { profile: rpc('enrichment.read.profile', getVehicleProfileRequestV1, getVehicleProfileReplyV1) },
} as const;

const durable = <N extends string, E extends EventDefinition>(name: N, event: E, ackWaitMs: number, maxDeliver: number, maxAckPending: number): ConsumerDefinition<E['schema']> & { durable: N; event: E } => ({
  durable: name,
  event,
  ackWaitMs,
  maxDeliver,
  maxAckPending,
});

/**
 * Durable consumers (every process with the same durable shares the work: one consumer group):
 * name, event, ack wait, max deliveries before the DLQ, max in flight (1 keeps strict order).
 * `{service}` in a name is the consuming service's name (a shared handler in several contexts).
 * The INGEST durables' ack wait is INGEST_ACK_WAIT_MS at run time (default below).
 */
export const CONSUMERS = {
  connectionConfig: durable('{service}-connection-config', EVENTS.connectionConfigChanged, 30_000, 10, 64),
  applicationGrants: durable('sync-orchestrator-application-grants', EVENTS.applicationGrantChanged, 30_000, 10, 64),
  gatewayConnectionHealth: durable('gateway-connection-health', EVENTS.connectionHealth, 30_000, 10, 64),
  directoryConnectionHealth: durable('directory-connection-health', EVENTS.connectionHealth, 30_000, 10, 64),
  directoryVehicleVisibility: durable('directory-vehicle-visibility', EVENTS.connectionConfigChanged, 30_000, 10, 16),
  telemetryFaultsObserved: durable('telemetry-ingest-faults-observed', EVENTS.faultsObserved, 30_000, 10, 16),
  vehicleVisibility: durable('{service}-vehicle-visibility', EVENTS.vehicleVisibility, 30_000, 10, 16),
  enrichmentVehicleVin: durable('enrichment-vehicle-vin', EVENTS.vehicleVin, 30_000, 10, 16),
  directoryIngest: durable('directory-ingest', EVENTS.directoryBatch, 60_000, 10, 16),
  // 32 in flight: telemetry-ingest commits the batches that wait together (group commit, decision 0038), so more waiting means larger groups.
  telemetryIngest: durable('telemetry-ingest-ingest', EVENTS.telemetryBatch, 60_000, 10, 32),
  faultFeedIngest: durable('fault-feed-ingest', EVENTS.faultBatch, 60_000, 10, 16),
  receipts: durable('sync-orchestrator-receipts', EVENTS.receipt, 30_000, 20, 64),
  // The webhook delivery role's fan-out (decision 0042): one in flight each, so events enter the
  // webhook log in stream order — the order per vehicle and per connection every endpoint keeps.
  webhookFaults: durable('gateway-webhook-faults', EVENTS.faultTransition, 30_000, 10, 1),
  webhookSyncOutcomes: durable('gateway-webhook-sync-outcomes', EVENTS.syncOutcome, 30_000, 10, 1),
  webhookConnectionStatus: durable('gateway-webhook-connection-status', EVENTS.connectionStatus, 30_000, 10, 1),
} as const;

/**
 * Which service consumes which durable: the provisioning step (deploy/nats/streams, decision 0033)
 * creates exactly these, `{service}` filled in, and the NATS users of deploy/nats/nats-server.conf
 * may bind to these only. An app's `@EventPattern` outside its list finds no durable provisioned.
 */
export const CONSUMED_BY = {
  // The HTTP role binds the health durable; the webhook delivery role (decision 0042) the rest.
  gateway: ['gatewayConnectionHealth', 'vehicleVisibility', 'webhookFaults', 'webhookSyncOutcomes', 'webhookConnectionStatus'],
  'sync-orchestrator': ['connectionConfig', 'applicationGrants', 'receipts'],
  directory: ['connectionConfig', 'directoryConnectionHealth', 'directoryVehicleVisibility', 'directoryIngest'],
  'telemetry-ingest': ['connectionConfig', 'vehicleVisibility', 'telemetryFaultsObserved', 'telemetryIngest'],
  'fault-feed': ['connectionConfig', 'vehicleVisibility', 'faultFeedIngest'],
  enrichment: ['connectionConfig', 'vehicleVisibility', 'enrichmentVehicleVin'],
} as const satisfies Record<keyof typeof SUBJECT_PREFIXES, readonly (keyof typeof CONSUMERS)[]>;

/** Every provisioned durable: its consuming service and its definition with the name filled in. */
export function provisionedConsumers(): { service: keyof typeof CONSUMED_BY; consumer: ConsumerDefinition }[] {
  return (Object.keys(CONSUMED_BY) as (keyof typeof CONSUMED_BY)[]).flatMap((service) =>
    CONSUMED_BY[service].map((key) => ({ service, consumer: { ...CONSUMERS[key], durable: CONSUMERS[key].durable.replaceAll('{service}', service) } as ConsumerDefinition })),
  );
}

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

/**
 * The payload type of one durable, for typed bindings:
 * `@EventPattern<Consumes<'directoryIngest'>>(CONSUMERS.directoryIngest.durable)` makes the compiler
 * check the handler's `@Payload()` type against the declared schema (a one-key map: Nest's typed
 * overload indexes the map with every key it has).
 */
export type Consumes<K extends keyof typeof CONSUMERS> = { [D in (typeof CONSUMERS)[K]['durable']]: z.output<(typeof CONSUMERS)[K]['event']['schema']> };

function flattenRpcs(tree: object): RpcDefinition[] {
  return Object.values(tree).flatMap((node: object) => ('subject' in node ? [node as RpcDefinition] : flattenRpcs(node)));
}

const RPC_BY_SUBJECT = new Map(flattenRpcs(RPCS).map((def) => [def.subject, def]));
const CONSUMER_BY_DURABLE = new Map<string, ConsumerDefinition>(Object.values(CONSUMERS).map((def) => [def.durable, def]));

/** A handler's binding resolved against the tables above, for one service. */
export type Binding = { kind: 'rpc'; rpc: RpcDefinition } | { kind: 'consumer'; consumer: ConsumerDefinition };

/**
 * Resolves a `@MessagePattern` (an RPC subject, `{context}` standing for the service's subject
 * prefix) or an `@EventPattern` (a durable name, `{service}` standing for the service's name) to
 * its declared entry. Undefined when the name is not declared here.
 */
export function resolveBinding(kind: 'rpc' | 'consumer', pattern: string, service: string): Binding | undefined {
  if (kind === 'rpc') {
    const prefix = SUBJECT_PREFIXES[service as keyof typeof SUBJECT_PREFIXES] ?? service;
    const rpc = RPC_BY_SUBJECT.get(pattern.replaceAll('{context}', prefix));
    return rpc && { kind, rpc };
  }
  const consumer = CONSUMER_BY_DURABLE.get(pattern);
  return consumer && { kind, consumer: { ...consumer, durable: pattern.replaceAll('{service}', service) } };
}
