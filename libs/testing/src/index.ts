/**
 * @switchyard/testing — the integration-test harness: where the services are, names that keep
 * concurrent runs apart, response checks against the OpenAPI document, waiting helpers, ports.
 * For spec files only (apps may not import it from production code).
 */
export { resolveTestServices, resolveTestServicesWith, stopTestServices, tcpProbe, startContainer, type ServiceProbes, type TestServices } from './services.js';
export { dropSchemas, isolatedSchemas, uniqueNamespace, uniqueSuffix } from './isolation.js';
export {
  createResponseValidator,
  defaultOpenApiPath,
  expectValidResponse,
  loadOpenApi,
  type OpenApiDocument,
  type ResponseUnderTest,
  type ResponseValidator,
} from './openapi-validator.js';
export { fetchValidated, type ValidatedFetchInit, type ValidatedResponse } from './validated-fetch.js';
export { findDocumentedPath, pickMediaType, pickResponse, type PathMatch } from './openapi-match.js';
export { expectEventually, pollUntil, settledWithin, sleep, type PollOptions } from './poll.js';
export { rpcErrorCode } from './rpc-error.js';
export { freePort, freePortRange } from './free-port.js';
export { deleteNamespaceStreams } from './nats-cleanup.js';
export { durableState, type DurableState } from './nats-consumers.js';
export { startServiceForTest, type ServiceUnderTest, type StartServiceForTestOptions } from './service-harness.js';
export { connectionConfig, ledgerHas, receiptsFor, startIngestHarness, telemetryBatchOf, type IngestHarness } from './ingest-harness.js';
export { assertBuilt, pinnedNode, SIMULATOR_OAUTH_CLIENT, SIMULATOR_OAUTH_PATHS, simulatorAuthorizationCode, spawnNode, spawnSimulator, workspaceProjects, workspaceRoot, type NodeProcess, type SpawnNodeOptions } from './node-process.js';
export { createTestDatabase, type TestDatabase } from './test-database.js';
export { startOwnedPostgres, type OwnedPostgres } from './owned-postgres.js';
export { startOwnedNats, startOwnedNatsCluster, type OwnedNats, type OwnedNatsCluster, type OwnedNatsNode } from './owned-nats.js';
export { openMigratedSchema, type MigratedSchema } from './migrated-schema.js';
export { canonicalDump, dumpDifference, DUMP_TABLES, VOLATILE_KEYS, VOLATILE_BY_TABLE, type CanonicalDumpOptions, type DumpContext } from './canonical-dump.js';
export { processState, serviceStarted, spawnService, waitUntilStopped, type ContextApp } from './service-process.js';
export { openFramed } from './framed.js';
export { arrangeVisibilityCase, VISIBILITY_CASES, type VisibilityCase } from './visibility-cases.js';
export { ancestorsOf, OtlpReceiver, type AttributeValue, type ReceivedSpan, type SpanKindName } from './otlp-receiver.js';
export { decodeJsonTraces, decodeProtobufTraces } from './otlp-protobuf.js';
export { startWebhookReceiver, verifyStandardWebhook, type ReceivedWebhook, type ReceiverAnswer, type WebhookReceiver } from './webhook-receiver.js';
