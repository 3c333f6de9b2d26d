/**
 * Seeding and waiting helpers shared by the sync route suites: a connection configured for
 * collection, an application with a Connection-Token and a sync grant, and waits until the
 * orchestrator's projections (connection config, application grants) hold what the gateway holds —
 * so a test never races the outbox relay. Direct orchestrator access (units, receipts) goes through
 * the orchestrator's exported UnitReceiptService, the API the collector session builds on.
 */
import type { ConnectionConfig, Provider } from '@switchyard/domain';
import type { SyncCallerV1 } from '@switchyard/messaging';
import type { Em } from '@switchyard/persistence';
import { UnitReceiptService } from '@switchyard/sync-orchestrator';
import { pollUntil } from '@switchyard/testing';
import { committingChange, type ConnectionConfigPatch } from '@switchyard/gateway';
import type { TestGateway } from './support.js';

type SyncOperation = 'sync.create' | 'sync.read' | 'sync.retry' | 'sync.cancel';
export const ALL_SYNC_OPERATIONS: SyncOperation[] = ['sync.create', 'sync.read', 'sync.retry', 'sync.cancel'];

/** Every purpose on, unified collection on, two approved vehicles. */
export const COLLECTING: ConnectionConfigPatch = {
  unifiedCollection: true,
  purposes: { vehicles: true, groupMemberships: true, trips: true },
  approvedVehicleIds: ['veh-1', 'veh-2'],
};

export interface SyncApp {
  id: string;
  secret: string;
  token: string;
  /** The Connection-Token's id (what the gateway passes to the orchestrator's recheck). */
  tokenId: string;
  connectionId: string;
  headers: Record<string, string>;
}

const gatewayEm = (gw: TestGateway): Em => gw.service.runtime.orm.em.fork();
const orchestratorEm = (gw: TestGateway): Em => gw.orchestrator!.runtime.orm.em.fork();
const quoted = (em: Em, table: string) => `"${em.config.get('schema')}"."${table}"`;

export async function createConnection(gw: TestGateway, patch: ConnectionConfigPatch = COLLECTING, provider: Provider = 'samsara'): Promise<string> {
  const created = await gw.connections.create({ customerId: `cust-${provider}`, provider, environment: 'sandbox' });
  const config = await gw.connections.configure(created.connectionId, patch);
  await waitForConfig(gw, config);
  return created.connectionId;
}

export async function configure(gw: TestGateway, connectionId: string, patch: ConnectionConfigPatch): Promise<void> {
  await waitForConfig(gw, await gw.connections.configure(connectionId, patch));
}

export async function createSyncApp(
  gw: TestGateway,
  connectionId: string,
  options: { operations?: SyncOperation[]; history?: boolean; name?: string } = {},
): Promise<SyncApp> {
  const app = await gw.credentials.createApplication(options.name ?? 'sync app', 'sandbox');
  await gw.credentials.grantApplication(app.id, connectionId, options.operations ?? ALL_SYNC_OPERATIONS, options.history ?? true);
  const token = await gw.credentials.issueConnectionToken(app.id, connectionId);
  await waitForGrants(gw, app.id);
  return { id: app.id, secret: app.token, token: token.token, tokenId: token.id, connectionId, headers: { authorization: `Bearer ${app.token}`, 'connection-token': token.token } };
}

/** Headers of a JSON POST for `app`. */
export const jsonHeaders = (app: SyncApp) => ({ ...app.headers, 'content-type': 'application/json' });

/** Waits until the orchestrator's projection holds `config` (its revision). */
export async function waitForConfig(gw: TestGateway, config: ConnectionConfig): Promise<void> {
  await gw.flushOutbox();
  await pollUntil(
    async () => {
      const em = orchestratorEm(gw);
      const rows = await em.execute<{ revision: number }[]>(`select revision from ${quoted(em, 'connection_config')} where connection_id = ?::uuid`, [config.connectionId]);
      return rows[0]?.revision === config.revision;
    },
    { description: `connection config revision ${config.revision} in the orchestrator` },
  );
}

type VersionColumn = 'credential_version' | 'token_version';

/** Waits until the orchestrator's grant projection holds the application's current credentialVersion and tokenVersion. */
export async function waitForGrants(gw: TestGateway, applicationId: string): Promise<number> {
  await gw.flushOutbox();
  const current = await versions(gw, applicationId);
  await pollUntil(
    async () => {
      const em = orchestratorEm(gw);
      const rows = await em.execute<Record<VersionColumn, number>[]>(
        `select credential_version, token_version from ${quoted(em, 'application_credential')} where application_id = ?::uuid`,
        [applicationId],
      );
      return rows[0]?.credential_version === current.credential_version && rows[0].token_version === current.token_version;
    },
    { description: `application ${applicationId} at versions ${JSON.stringify(current)} in the orchestrator` },
  );
  return current.credential_version;
}

async function versions(gw: TestGateway, applicationId: string): Promise<Record<VersionColumn, number>> {
  const em = gatewayEm(gw);
  const rows = await em.execute<Record<VersionColumn, number>[]>(`select credential_version, token_version from ${quoted(em, 'application')} where id = ?::uuid`, [applicationId]);
  return rows[0]!;
}

export async function credentialVersion(gw: TestGateway, applicationId: string): Promise<number> {
  return (await versions(gw, applicationId)).credential_version;
}

/** The sync RPC caller the gateway would send for `app` now (its current versions, its Connection-Token). */
export async function callerOf(gw: TestGateway, app: SyncApp): Promise<SyncCallerV1> {
  const current = await versions(gw, app.id);
  return { applicationId: app.id, connectionId: app.connectionId, credentialVersion: current.credential_version, connectionToken: { id: app.tokenId, tokenVersion: current.token_version } };
}

/**
 * Simulates a grant (credential_version) or token (token_version) change whose event has not reached
 * the orchestrator: the version moves, no outbox row. Committed as every credential change is
 * (committingChange), so the gateways' principal caches see the new version, as the test needs.
 */
export async function bumpVersionWithoutEvent(gw: TestGateway, applicationId: string, column: VersionColumn = 'credential_version'): Promise<void> {
  await committingChange(gw.service.runtime.orm, (em) => em.execute(`update ${quoted(em, 'application')} set ${column} = ${column} + 1 where id = ?::uuid`, [applicationId]));
}

export function receipts(gw: TestGateway): UnitReceiptService {
  return gw.orchestrator!.app.get(UnitReceiptService);
}

export interface UnitRow {
  id: string;
  purpose: string;
  state: string;
  attempt: number;
  fencing_token: string;
  lease_owner: string | null;
  lease_expires_at: Date | null;
}

export async function unitsOf(gw: TestGateway, syncId: string): Promise<UnitRow[]> {
  const em = orchestratorEm(gw);
  return em.execute<UnitRow[]>(
    `select id::text as id, purpose, state, attempt, fencing_token::text as fencing_token, lease_owner, lease_expires_at from ${quoted(em, 'sync_unit')} where sync_id = ? order by seq`,
    [syncId],
  );
}

export async function countSyncs(gw: TestGateway, connectionId: string): Promise<number> {
  const em = orchestratorEm(gw);
  const rows = await em.execute<{ n: string }[]>(`select count(*)::text as n from ${quoted(em, 'sync')} where connection_id = ?::uuid`, [connectionId]);
  return Number(rows[0]!.n);
}

export const evidence = (key: string) => ({ context: 'directory', receiptKey: key, committedAt: new Date().toISOString() });
