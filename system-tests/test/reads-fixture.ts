/**
 * Seeding helpers shared by the stored-read suites (trips, drivers, groups, vehicles): a connection
 * whose configuration has reached the directory's projection, a consumer key with a read grant,
 * normalized records, directory batches published into the directory's ingest consumer (waiting
 * for their commit), and connection-health events as the collectors publish them.
 */
import { available, missing, type Provider } from '@switchyard/domain';
import { connectionHealthMsgId, type ConnectionHealthV1, type DirectoryBatchV1, type DirectoryDataset, type DriverRecordV1, EVENTS, healthDatasetsOf, ingestBatchId, subjectFor, type TripRecordV1, type VehicleRecordV1 } from '@switchyard/messaging';
import type { Em } from '@switchyard/persistence';
import { pollUntil } from '@switchyard/testing';
import type { ConnectionConfigPatch } from '@switchyard/gateway';
import type { TestGateway } from './support.js';

const SRC = 'test:field';
const directoryEm = (gw: TestGateway): Em => gw.directory!.runtime.orm.em.fork();
const quoted = (em: Em, table: string) => `"${em.config.get('schema')}"."${table}"`;

export async function directorySql<T>(gw: TestGateway, sql: (t: (table: string) => string) => string, params: unknown[] = []): Promise<T[]> {
  const em = directoryEm(gw);
  return em.execute<T[]>(
    sql((table) => quoted(em, table)),
    params,
  );
}

/** Creates a connection, applies `patch` and waits until the directory's projection holds it. */
export async function readConnection(gw: TestGateway, patch: ConnectionConfigPatch = {}, provider: Provider = 'samsara'): Promise<string> {
  const created = await gw.connections.create({ customerId: `cust-${provider}`, provider, environment: 'sandbox' });
  await configureReads(gw, created.connectionId, patch);
  return created.connectionId;
}

export async function configureReads(gw: TestGateway, connectionId: string, patch: ConnectionConfigPatch): Promise<void> {
  const config = await gw.connections.configure(connectionId, patch);
  await gw.flushOutbox();
  await pollUntil(
    async () => (await directorySql<{ revision: number }>(gw, (t) => `select revision from ${t('connection_config')} where connection_id = ?::uuid`, [connectionId]))[0]?.revision === config.revision,
    { timeoutMs: 15_000, description: `config revision ${config.revision} in the directory` },
  );
}

/** A consumer key with `read` on each of `connectionIds`; returns its id and request headers. */
export async function readKey(gw: TestGateway, connectionIds: string[]): Promise<{ id: string; headers: Record<string, string> }> {
  const key = await gw.credentials.createConsumerKey('reader');
  for (const connectionId of connectionIds) await gw.credentials.grantConsumer(key.id, connectionId, ['read']);
  return { id: key.id, headers: { authorization: `Bearer ${key.token}` } };
}

const cells = (status: 'active' | 'inactive', groups: string[]) => {
  const m = <T>(k: string) => missing<T>(`${SRC}.${k}`);
  return {
    make: available('Volvo', SRC),
    model: available('VNL', SRC),
    year: available(2021, SRC),
    status: available(status, SRC),
    providerStatus: m<string>('providerStatus'),
    fuelType: available('diesel' as const, SRC),
    sourceFuelType: m<string>('sourceFuelType'),
    createdAt: available('2024-01-02T03:04:05Z', SRC),
    updatedAt: m<string>('updatedAt'),
    activeFrom: m<string>('activeFrom'),
    activeTo: m<string>('activeTo'),
    licensePlate: available('ABC-123', SRC),
    licensePlateRegion: available('CA', SRC),
    serialNumber: m<string>('serialNumber'),
    groups: available(
      groups.map((id) => ({ id, name: `Group ${id}` })),
      SRC,
    ),
  };
};

export function vehicleRecord(sourceId: string, fetchedAt: string, status: 'active' | 'inactive' = 'active', provider: Provider = 'samsara'): VehicleRecordV1 {
  return { provider, sourceId, name: available(`Truck ${sourceId}`, SRC), vin: available('1FUJGLDR7CLBP8834', SRC), metadata: cells(status, ['g1']), fetchedAt } as VehicleRecordV1;
}

export function driverRecord(sourceId: string, fetchedAt: string, provider: Provider = 'samsara'): DriverRecordV1 {
  const m = (k: string) => missing<string>(`${SRC}.${k}`);
  return {
    provider,
    sourceId,
    status: available('active', SRC),
    fields: {
      firstName: available('Ada', SRC),
      middleName: m('middleName'),
      lastName: available('Lovelace', SRC),
      displayName: available('Ada Lovelace', SRC),
      email: available('ada@example.com', SRC),
      phone: available('+14155550100', SRC),
      username: m('username'),
      licenseNumber: available('D123', SRC),
      licenseState: available('CA', SRC),
      createdAt: m('createdAt'),
      updatedAt: m('updatedAt'),
    },
    groupIds: available(['g1'], SRC),
    fetchedAt,
  } as DriverRecordV1;
}

export function tripRecord(
  sourceId: string,
  vehicleSourceId: string,
  startedAt: string,
  fetchedAt: string,
  extra: Partial<TripRecordV1> = {},
): TripRecordV1 {
  const start = Date.parse(startedAt);
  return {
    provider: 'samsara',
    sourceId,
    vehicleSourceId,
    driverSourceId: 'd1',
    startedAt,
    endedAt: new Date(start + 30 * 60_000).toISOString(),
    durationMs: 30 * 60_000,
    distanceKm: available(12.5, `${SRC}.distance`),
    distanceBasis: 'odometer',
    startLocation: available({ latitude: 37.77, longitude: -122.42 }, SRC),
    endLocation: missing(`${SRC}.end`),
    fetchedAt,
    ...extra,
  } as TripRecordV1;
}

let unitCounter = Math.floor(Math.random() * 1e9);

/** A fresh collection unit id: the batches published with it form one pass. */
export const newUnit = (): string => String(++unitCounter);

/**
 * Publishes a batch into the directory's ingest consumer and waits until the directory committed it.
 * By default the batch is a whole pass (a unit of its own, final); `unit` and `page` make it one
 * page of a longer pass.
 */
export async function ingest<K extends DirectoryBatchV1['kind']>(
  gw: TestGateway,
  connectionId: string,
  kind: K,
  records: Extract<DirectoryBatchV1, { kind: K }>['records'],
  options: { fetchedAt?: string; final?: boolean; provider?: Provider; unit?: string; page?: string } = {},
): Promise<string> {
  const unitId = options.unit ?? newUnit();
  const batch = {
    batchId: ingestBatchId({ connectionId, kind, unitId, fencingToken: '1', pageKey: options.page ?? 'p', part: 0 }),
    connectionId,
    provider: options.provider ?? 'samsara',
    syncId: 'sync_01JD0000000000000000000000',
    unitId,
    fencingToken: '1',
    kind,
    records,
    fetchedAt: options.fetchedAt ?? new Date().toISOString(),
    providerCursor: null,
    final: options.final ?? true,
  } as DirectoryBatchV1;
  await gw.bus.publish(EVENTS.directoryBatch, subjectFor(EVENTS.directoryBatch.subject, connectionId), batch, { msgId: batch.batchId });
  await pollUntil(
    async () => (await directorySql<{ status: string }>(gw, (t) => `select status from ${t('ingest_batch')} where batch_id = ?`, [batch.batchId]))[0]?.status === 'committed',
    { timeoutMs: 20_000, description: `batch ${batch.batchId} committed` },
  );
  return batch.batchId;
}

let healthSequence = 1;

/**
 * Publishes a connection-health observation as a collector does and waits until the directory
 * projected it for every dataset it is about; `datasets` undefined: an event without the field
 * (it counts for every dataset).
 */
export async function reportHealth(gw: TestGateway, connectionId: string, outcome: 'success' | 'failure', errorCode: string | null = null, datasets?: DirectoryDataset[]): Promise<void> {
  const event: ConnectionHealthV1 = { connectionId, observedAt: new Date().toISOString(), outcome, errorCode, scope: 'core', nextRetryAt: null, sequence: String(healthSequence++), ...(datasets ? { datasets } : {}) };
  await gw.bus.publish(EVENTS.connectionHealth, subjectFor(EVENTS.connectionHealth.subject, connectionId), event, { msgId: connectionHealthMsgId(event) });
  const column = outcome === 'success' ? 'last_success_at' : 'last_failure_at';
  const expected = healthDatasetsOf(event);
  await pollUntil(
    async () => {
      const rows = await directorySql<{ at: string | null }>(
        gw,
        (t) => `select ${column}::text as at from ${t('dataset_health')} where connection_id = ?::uuid and scope = 'core' and dataset = any(?::text[])`,
        [connectionId, `{${expected.join(',')}}`],
      );
      return rows.length === expected.length && rows.every((row) => row.at !== null && Date.parse(row.at) >= Date.parse(event.observedAt));
    },
    { timeoutMs: 15_000, description: `health ${outcome} projected` },
  );
}
