/**
 * Public surface of @switchyard/messaging: the port, the factory, the name authority, the message
 * schemas, the errors and the header table. Implementation classes stay internal except through
 * `createBus`; settlement rules are exported for documentation and tests of consumers.
 */
export type * from './port.js';
export { createBus, type BusConfig, type InProcessBusConfig, type JetStreamBusConfig } from './create-bus.js';
export { silentLogger, stderrLogger, type BusLogger } from './logger.js';
export { BusTimeoutError, BusUnavailableError, MessageValidationError, PoisonMessage, RetryLater, RpcError, StreamConfigMismatchError, type RpcErrorBody } from './errors.js';
export { HEADERS, fromWireHeaders, toWireHeaders } from './headers.js';
export * from './correlation.js';
export {
  ALL_STREAMS,
  CONSUMED_BY,
  CONSUMERS,
  provisionedConsumers,
  SUBJECT_PREFIXES,
  resolveBinding,
  type Binding,
  type Consumes,
  DUPLICATE_WINDOW_MS,
  EVENTS,
  Namespace,
  RPCS,
  STREAMS,
  type StreamName,
  withStreamLimits,
  deadLetterSubject,
  streamForSubject,
  subjectFor,
  subjectMatches,
} from './subjects.js';
export { DEFAULT_REQUEST_TIMEOUT_MS } from './request-defaults.js';
export { framedReply, isFramed, type FramedReplyOf, type JsonText } from './framed-reply.js';
export { provisionJetStream, provisionStreamFiles, type ProvisionOptions } from './jetstream/provisioning.js';
export { namespacedConsumer, namespacedStream, streamConfigOf, streamDifferences, streamFiles, streamFileText, type ConsumerConfigJson, type StreamConfigJson, type StreamFile } from './jetstream/stream-files.js';
export { DEFAULT_BACKOFF, SERVER_MAX_DELIVER_SPARE, backoffDelay, type Settlement } from './jetstream/settlement.js';
export * from './schemas/connection-config.v1.js';
export * from './schemas/dead-letter.v1.js';
export * from './schemas/dead-letter-ops.v1.js';
export { DeadLetters, summaryOf, type DeadLetterFilter, type DiscardOutcome, type ReplayOutcome, type StoredDeadLetter } from './dead-letters.js';
export { DeadLetterStore, type DeadLetterStoreOptions } from './jetstream/dead-letters.js';
export * from './schemas/ping.v1.js';
export * from './schemas/application-grant.v1.js';
export * from './schemas/sync-api.v1.js';
export * from './schemas/operator-runs.v1.js';
export * from './schemas/vehicle-refresh.v1.js';
export * from './ingest-subjects.js';
export * from './provider-access.js';
export * from './connection-health.js';
export * from './schemas/directory-read.v1.js';
export * from './schemas/directory-read-trips.v1.js';
export * from './schemas/directory-read-vehicles.v1.js';
export * from './vehicle-visibility.js';
export * from './schemas/directory-read-groups.v1.js';
export * from './schemas/directory-read-drivers.v1.js';
export * from './schemas/telemetry-read.v1.js';
export * from './schemas/telemetry-freshness.v1.js';
export * from './schemas/usage-report.v1.js';
export * from './schemas/fault-read.v1.js';
export * from './schemas/enrichment-read.v1.js';
export * from './schemas/fault-observation.v1.js';
export * from './fault-transition-events.js';
export * from './schemas/connect-session.v1.js';
export * from './schemas/connection-status.v1.js';
export * from './schemas/sync-outcome.v1.js';
export * from './schemas/webhook.v1.js';
