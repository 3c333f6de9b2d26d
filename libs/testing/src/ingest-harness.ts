/**
 * Test support for the ingest consumers: one service on an isolated schema and namespace, a second
 * process of the same service on the SAME schema and namespace (two consumers of one durable), a
 * connection configuration published over the bus (in a context that projects vehicle visibility,
 * with the empty hidden set the directory publishes for a configuration without visibility rules:
 * decision 0029 hides every vehicle until a set has arrived), a receipt collector, and raw SQL
 * against the service's schema. Shared by the ingest specs of directory, telemetry-ingest and fault-feed; the
 * service under test is passed in (its definition and start function), so this lib imports no app.
 */
import { randomUUID } from 'node:crypto';
import { hasVisibilityRules } from '@switchyard/domain';
import { type ConnectionConfigV1, createBus, EVENTS, ingestBatchId, type MessageBus, type ObservationV1, type ReceiptV1, subjectFor, type Subscription, type TelemetryBatchV1, type VehicleVisibilityChangedV1, vehicleVisibilityMsgId } from '@switchyard/messaging';
import { VehicleVisibilityEntity, type IngestContextStartOptions, type RunningService, type ServiceDefinition } from '@switchyard/service-kit';
import { pollUntil } from './poll.js';
import { startServiceForTest, type ServiceUnderTest } from './service-harness.js';

export interface IngestHarness {
  h: ServiceUnderTest;
  receipts: ReceiptV1[];
  sql<T>(text: string, params?: unknown[]): Promise<T[]>;
  /** `"<schema>"."<table>"`. */
  t(table: string): string;
  connect(overrides?: Partial<ConnectionConfigV1>): Promise<ConnectionConfigV1>;
  /** Publishes a directory hidden set and waits until this context projected it (a context with the visibility projection). */
  publishVisibility(set: VehicleVisibilityChangedV1): Promise<void>;
  /** Starts another process of the service on the same schema and namespace (`env`: its INGEST_ACK_WAIT_MS; default process.env). */
  startSecond(env?: NodeJS.ProcessEnv): Promise<RunningService>;
  close(): Promise<void>;
}

export function connectionConfig(overrides: Partial<ConnectionConfigV1> = {}): ConnectionConfigV1 {
  return {
    connectionId: randomUUID(),
    provider: 'samsara',
    environment: 'sandbox',
    status: 'active',
    unifiedCollection: true,
    purposes: { vehicles: true, groupMemberships: true, trips: true },
    approvedVehicleIds: [],
    includeVehicleIds: [],
    excludeVehicleIds: [],
    includeStatuses: [],
    optIns: { groupInventory: false, vehicleMetadata: true, extendedTelemetry: true },
    approvedGroupIds: [],
    selectedSignals: [],
    revision: 1,
    updatedAt: new Date().toISOString(),
    ...overrides,
  };
}

export async function startIngestHarness(definition: ServiceDefinition, start: (o: IngestContextStartOptions) => Promise<RunningService>): Promise<IngestHarness> {
  const h = await startServiceForTest(definition, { start });
  const receipts: ReceiptV1[] = [];
  const extra: { bus: MessageBus; service: RunningService }[] = [];
  let receiptSub: Subscription | undefined;
  try {
    receiptSub = await h.client.consume(
      { durable: 'test-receipts', event: EVENTS.receipt, ackWaitMs: 30_000, maxDeliver: 3, maxAckPending: 64 },
      async ({ payload }) => {
        receipts.push(payload);
      },
    );
  } catch (error) {
    await h.close();
    throw error;
  }
  const em = () => h.service.runtime.orm.em.fork();
  const projectsVisibility = definition.entities.includes(VehicleVisibilityEntity);
  const harness: IngestHarness = {
    h,
    receipts,
    sql: <T>(text: string, params: unknown[] = []) => em().execute<T[]>(text, params),
    t: (table) => `"${h.schema}"."${table}"`,
    async connect(overrides = {}) {
      const config = connectionConfig(overrides);
      await h.client.publish(EVENTS.connectionConfigChanged, subjectFor(EVENTS.connectionConfigChanged.subject, config.connectionId), config, {
        msgId: `${config.connectionId}:${config.revision}`,
      });
      await pollUntil(
        async () => {
          const rows = await harness.sql<{ revision: number }>(`select revision from ${harness.t('connection_config')} where connection_id = ?`, [config.connectionId]);
          return rows[0]?.revision === config.revision;
        },
        { timeoutMs: 10_000 },
      );
      if (projectsVisibility && !hasVisibilityRules(config)) {
        await harness.publishVisibility({ connectionId: config.connectionId, sequence: '1', configRevision: config.revision, computedAt: new Date().toISOString(), hidden: [] });
      }
      return config;
    },
    async publishVisibility(set) {
      await h.client.publish(EVENTS.vehicleVisibility, subjectFor(EVENTS.vehicleVisibility.subject, set.connectionId), set, { msgId: vehicleVisibilityMsgId(set) });
      await pollUntil(
        async () => {
          const rows = await harness.sql<{ sequence: string }>(`select sequence::text as sequence from ${harness.t('vehicle_visibility')} where connection_id = ?`, [set.connectionId]);
          return rows[0] !== undefined && BigInt(rows[0].sequence) >= BigInt(set.sequence);
        },
        { timeoutMs: 10_000, description: `visibility ${set.sequence} projected` },
      );
    },
    async startSecond(env) {
      const bus = await createBus({ kind: 'jetstream', servers: h.natsUrl, name: `${definition.service}-second`, namespace: h.namespace });
      const service = await start({ databaseUrl: h.databaseUrl, bus, environment: 'sandbox', schema: h.schema, allServiceSchemas: Object.values(h.schemas), migrateOnStart: true, logLevel: 'warn', env });
      extra.push({ bus, service });
      return service;
    },
    async close() {
      await receiptSub?.drain().catch(() => undefined);
      for (const { bus, service } of extra) {
        await service.close().catch(() => undefined);
        await bus.close().catch(() => undefined);
      }
      await h.close();
    },
  };
  return harness;
}

/** Waits until `count` receipts for `batchId` arrived (and returns them). */
export function receiptsFor(harness: IngestHarness, batchId: string, count = 1): Promise<ReceiptV1[]> {
  return pollUntil(
    () => {
      const found = harness.receipts.filter((r) => r.batchId === batchId);
      return found.length >= count ? found : undefined;
    },
    { timeoutMs: 15_000 },
  );
}

/** Waits until the ledger holds `batchId` as committed or rejected. */
export function ledgerHas(harness: IngestHarness, batchId: string): Promise<true> {
  return pollUntil(
    async () => {
      const rows = await harness.sql<{ status: string }>(`select status from ${harness.t('ingest_batch')} where batch_id = ?`, [batchId]);
      return rows[0] !== undefined && rows[0].status !== 'pending';
    },
    { timeoutMs: 15_000 },
  );
}

let telemetryBatchSeq = 0;

/**
 * One observations batch of a unit of its own (a fresh unit id and page each call), as a collector
 * publishes it: what the telemetry-ingest tests send through the pipeline.
 */
export function telemetryBatchOf(connectionId: string, records: ObservationV1[], fetchedAt = records[0]?.fetchedAt ?? new Date().toISOString()): TelemetryBatchV1 {
  const unitId = String(++telemetryBatchSeq);
  return {
    batchId: ingestBatchId({ connectionId, kind: 'observations', unitId, fencingToken: '1', pageKey: `t${telemetryBatchSeq}:${randomUUID()}`, part: 0 }),
    connectionId,
    provider: 'samsara',
    syncId: 'sync_01JD0000000000000000000000',
    unitId,
    fencingToken: '1',
    kind: 'observations',
    records,
    fetchedAt,
    providerCursor: null,
    final: false,
  };
}
