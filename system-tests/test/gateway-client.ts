/**
 * What a pipeline system test does at the gateway, whichever way the contexts run
 * (in-process in pipeline-stack.ts, as real processes in process-deployment.ts): provisioning the
 * way an operator does (ConnectionsAdmin, CredentialsAdmin), waiting until the contexts projected
 * it, and the public sync API of one connection over HTTP (`SyncApi`), every response validated
 * against the OpenAPI document.
 *
 * Invariant: a test calls the sync API only after `awaitProjected` saw the application's CURRENT
 * credential and token versions in the orchestrator: the gateway authenticates with them and an
 * older projected pair answers 503 service_unavailable.
 */
import { expect } from '@jest/globals';
import { ConnectionsAdmin, CredentialsAdmin, OutboxRelay, SecretBox, type ConnectionConfigPatch } from '@switchyard/gateway';
import type { Provider } from '@switchyard/domain';
import type { RunningService } from '@switchyard/service-kit';
import { createResponseValidator, fetchValidated, loadOpenApi, pollUntil, type ValidatedResponse } from '@switchyard/testing';

/** A sync as `GET /v1/syncs/{id}` answers it. */
export interface PublicSync {
  id: string;
  status: string;
  requestedAt: string;
  startFrom: string;
  progress: number;
  failureReason?: string;
  completedAt?: string;
}

/** Every operation of the public sync API. */
export const SYNC_OPERATIONS = ['sync.create', 'sync.read', 'sync.retry', 'sync.cancel'] as const;
export type SyncOperation = (typeof SYNC_OPERATIONS)[number];

/** A collecting connection: active, unified collection on, every purpose (a test's own patch goes over it). */
export const COLLECTING_CONFIG: ConnectionConfigPatch = { status: 'active', unifiedCollection: true, purposes: { vehicles: true, groupMemberships: true, trips: true } };

const openApi = createResponseValidator(loadOpenApi());

/** One exchange with the gateway, the response validated against the OpenAPI document; `body` is sent as JSON. */
export function validatedCall(gatewayUrl: string, method: string, path: string, headers: Record<string, string>, body?: unknown): Promise<ValidatedResponse> {
  return fetchValidated(openApi, gatewayUrl, method, path, body === undefined ? { headers } : { headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify(body) });
}

/** Raw SQL on a service's pool (every name schema-qualified: all schemas live in one database). */
export function execute<T>(service: RunningService, text: string, params: unknown[] = []): Promise<T[]> {
  return service.runtime.orm.em.fork().execute<T[]>(text, params);
}

/** Creates a connection and applies its configuration, as an operator does. */
export async function createConnection(
  gateway: RunningService,
  masterKey: string,
  input: { provider: Provider; providerCredentials: Record<string, string>; customerId: string; config: ConnectionConfigPatch; id?: string },
): Promise<{ connectionId: string; revision: number }> {
  const connections = new ConnectionsAdmin(gateway.runtime.orm, new SecretBox(masterKey));
  const { connectionId } = await connections.create({
    ...(input.id ? { id: input.id } : {}),
    customerId: input.customerId,
    provider: input.provider,
    environment: 'sandbox',
    providerCredentials: input.providerCredentials,
  });
  const { revision } = await connections.configure(connectionId, input.config);
  return { connectionId, revision };
}

/** A fresh application granted `operations` (history included) on the connection, and the HTTP headers it calls the sync API with. */
export async function grantApplication(
  gateway: RunningService,
  connectionId: string,
  name: string,
  operations: readonly SyncOperation[] = SYNC_OPERATIONS,
): Promise<{ applicationId: string; headers: Record<string, string> }> {
  const credentials = new CredentialsAdmin(gateway.runtime.orm);
  const app = await credentials.createApplication(name, 'sandbox');
  await credentials.grantApplication(app.id, connectionId, [...operations], true);
  const token = (await credentials.issueConnectionToken(app.id, connectionId)).token;
  return { applicationId: app.id, headers: { authorization: `Bearer ${app.token}`, 'connection-token': token } };
}

/**
 * Publishes the gateway outbox and waits until the schema of every app in `projections` holds
 * `revision` of the connection and, with `applicationId`, until the orchestrator holds that
 * application's current credential and token versions (see the header). `schemas` are the deployment's
 * isolated schemas by app name.
 */
export async function awaitProjected(
  gateway: RunningService,
  schemas: Record<string, string>,
  input: { connectionId: string; revision: number; projections: readonly string[]; applicationId?: string; timeoutMs: number },
): Promise<void> {
  const { connectionId, revision, applicationId, timeoutMs } = input;
  await gateway.app.get(OutboxRelay).flush();
  for (const schema of input.projections.map((app) => schemas[app]!)) {
    await pollUntil(async () => (await execute<{ revision: number }>(gateway, `select revision from "${schema}".connection_config where connection_id = ?::uuid`, [connectionId]))[0]?.revision === revision, {
      timeoutMs,
      description: `config revision ${revision} in ${schema}`,
    });
  }
  if (applicationId === undefined) return;
  // [-1, -1] for no row yet: the orchestrator must hold the application at all.
  const versions = async (table: string, column: string): Promise<[number, number]> => {
    const row = (await execute<{ c: number; t: number }>(gateway, `select credential_version as c, token_version as t from ${table} where ${column} = ?::uuid`, [applicationId]))[0];
    return row ? [row.c, row.t] : [-1, -1];
  };
  const [credential, token] = await versions(`"${schemas.gateway}".application`, 'id');
  await pollUntil(
    async () => {
      const [c, t] = await versions(`"${schemas['sync-orchestrator']}".application_credential`, 'application_id');
      return c > credential || (c === credential && t >= token);
    },
    { timeoutMs, description: `application grant versions ${credential}/${token} in the orchestrator` },
  );
}

/** The public sync API of one connection as one application calls it. */
export class SyncApi {
  constructor(
    readonly gatewayUrl: string,
    readonly headers: Record<string, string>,
  ) {}

  /** Any sync route with this application's headers; `body` is sent as JSON. */
  async request(method: string, path: string, body?: unknown): Promise<{ status: number; body: unknown }> {
    const res = await validatedCall(this.gatewayUrl, method, path, this.headers, body);
    return { status: res.status, body: res.body };
  }

  async createSync(body: unknown): Promise<PublicSync> {
    const res = await this.request('POST', '/v1/syncs', body);
    expect(res).toMatchObject({ status: 201 });
    return res.body as PublicSync;
  }

  async readSync(id: string): Promise<PublicSync> {
    const res = await this.request('GET', `/v1/syncs/${id}`);
    expect(res).toMatchObject({ status: 200 });
    return res.body as PublicSync;
  }

  /** `POST /v1/syncs/{id}/{action}` with an empty body. */
  act(id: string, action: 'cancel' | 'retry'): Promise<{ status: number; body: unknown }> {
    return this.request('POST', `/v1/syncs/${id}/${action}`);
  }

  async listSyncs(status: string): Promise<PublicSync[]> {
    const res = await this.request('GET', `/v1/syncs?status=${status}&limit=100`);
    expect(res).toMatchObject({ status: 200 });
    return (res.body as { syncs: PublicSync[] }).syncs;
  }

  /** Polls until the sync is `completed` or `failed` (a read that fails, e.g. 503 while no orchestrator answers, is retried). */
  async settled(id: string, timeoutMs = 120_000, intervalMs = 250): Promise<PublicSync> {
    return pollUntil(
      async () => {
        const sync = await this.readSync(id);
        return sync.status === 'completed' || sync.status === 'failed' ? sync : undefined;
      },
      { timeoutMs, intervalMs, description: `sync ${id} completed or failed` },
    );
  }
}
