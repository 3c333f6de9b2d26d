/**
 * Creating connections and changing their configuration (operator CLI, sandbox seeding).
 * Invariant: the configuration row and the outbox event announcing it are written in one
 * transaction, with `revision` incremented under a row lock, so contexts receive every change in
 * revision order exactly as stored (the relay publishes with msgId `connection-config:<id>:<rev>`).
 * A change of status to `disconnected` also bumps the connection's access epoch in the same
 * transaction, which refuses every cursor issued before it (docs/decisions/0013).
 * A connection whose connect session completed stays out of `active` until `activate` installs the
 * reviewed signal-limited activation policy (docs/decisions/0022).
 * A change of status also writes `events.connection.status.<id>` (the transition, which a snapshot
 * cannot tell; the webhook events `connection.paused|resumed|disconnected`) in the same transaction.
 * Every change is a `committingChange` (credential-change-hooks.ts): a connection's status and access
 * epoch authorize requests, so every gateway's principal cache is cleared at its commit (decision 0031).
 */
import { randomUUID } from 'node:crypto';
import type { Orm } from '@switchyard/persistence';
import { defaultConnectionConfig, nameUuid, validateConnectionConfig, type ConnectionConfig, type Environment, type Provider, type SelectedSignal } from '@switchyard/domain';
import { EVENTS, subjectFor, type ConnectionStatusChangedV1 } from '@switchyard/messaging';
import { Connection, ConnectSession, GeotabBinding, OutboxMessage } from '../db/entities/index.js';
import { lockConnectionForUpdate } from '../db/repositories/connections-admin.repository.js';
import { committingChange } from './credential-change-hooks.js';
import { AdminError } from './credentials-admin.service.js';
import type { SecretBox } from './secret-box.js';

/** What an operator may change; identity fields (id, provider, environment, revision) are not. */
export type ConnectionConfigPatch = Partial<Omit<ConnectionConfig, 'connectionId' | 'provider' | 'environment' | 'revision' | 'updatedAt'>>;

export class ConnectionsAdmin {
  constructor(
    private readonly orm: Orm,
    private readonly secrets: SecretBox,
  ) {}

  /**
   * `id` is for tests that compare two deployments holding the same connection (public ids derive
   * from it); default a fresh UUID. `config`: the initial configuration, in revision 1 — so no
   * context ever sees the connection with the defaults first (the sandbox seed: a scheduler that met
   * revision 1 with the collection gate closed waited a whole window before collecting).
   */
  async create(input: { customerId: string; provider: Provider; environment: Environment; providerCredentials?: Record<string, string>; id?: string; config?: ConnectionConfigPatch }): Promise<ConnectionConfig> {
    const id = input.id ?? randomUUID();
    const defaults = defaultConnectionConfig(id, input.provider, input.environment);
    const config = input.config ? valid({ ...defaults, ...input.config, connectionId: id, provider: input.provider, environment: input.environment, revision: defaults.revision, updatedAt: defaults.updatedAt }) : defaults;
    await committingChange(this.orm, async (em) => {
      await em.insert(Connection, {
        id,
        customerId: input.customerId,
        provider: input.provider,
        environment: input.environment,
        providerCredentials: input.providerCredentials ? this.secrets.seal(JSON.stringify(input.providerCredentials), id) : null,
        config,
        configRevision: config.revision,
        createdAt: new Date(),
        updatedAt: new Date(),
      });
      await this.enqueue(em, config);
    });
    return config;
  }

  /** `reason`: why the status changes (`connection:pause --reason`), kept with the time for the console. */
  async configure(connectionId: string, patch: ConnectionConfigPatch, reason?: string): Promise<ConnectionConfig> {
    return committingChange(this.orm, (em) => this.apply(em, connectionId, patch, reason === undefined ? {} : { statusReason: reason }));
  }

  /**
   * One configuration change on the caller's transaction (row lock, revision, epoch, outbox), with
   * optional column changes of the same row. Refuses to make a connection `active` while a
   * completed connect session waits for its activation policy (spec 3 session rule 3): `activate`
   * is the only way out of that state. A status change records `statusReason` (null when none is
   * given: unknown, never guessed) and its time; a reason given without a change replaces the reason.
   */
  async apply(
    em: Orm['em'],
    connectionId: string,
    patch: ConnectionConfigPatch,
    columns: { providerCredentials?: string | null; activationPending?: boolean; statusReason?: string } = {},
  ): Promise<ConnectionConfig> {
    const locked = await lockConnectionForUpdate(em, connectionId);
    if (!locked) throw new AdminError('connection_not_found');
    const current = locked.config;
    const next: ConnectionConfig = {
      ...current,
      ...patch,
      connectionId: current.connectionId,
      provider: current.provider,
      environment: current.environment,
      revision: current.revision + 1,
      updatedAt: new Date().toISOString(),
    };
    valid(next);
    const pending = columns.activationPending ?? locked.activation_pending;
    if (pending && next.status === 'active') {
      throw new AdminError('activation_policy_required: a completed connect session waits for its reviewed signal-limited activation policy (npm run operator -- connection:activate)');
    }
    // The row lock above makes this read-modify-write of the epoch safe.
    const disconnects = current.status !== 'disconnected' && next.status === 'disconnected';
    const accessEpoch = locked.access_epoch + (disconnects ? 1 : 0);
    const statusChanged = next.status !== current.status;
    const status = statusChanged || columns.statusReason !== undefined ? { statusReason: columns.statusReason ?? null, statusChangedAt: statusChanged ? new Date() : undefined } : {};
    await em.nativeUpdate(
      Connection,
      { id: connectionId },
      {
        config: next,
        configRevision: next.revision,
        accessEpoch,
        activationPending: pending,
        ...(columns.providerCredentials !== undefined ? { providerCredentials: columns.providerCredentials } : {}),
        ...(status.statusReason !== undefined ? { statusReason: status.statusReason } : {}),
        ...(status.statusChangedAt ? { statusChangedAt: status.statusChangedAt } : {}),
        updatedAt: new Date(),
      },
    );
    await this.enqueue(em, next);
    if (current.status !== next.status) await this.enqueueStatusChange(em, current.status, next);
    return next;
  }

  /** Seals provider credentials for a connection (the connect page's completion, on its transaction). */
  sealCredentials(connectionId: string, credentials: Record<string, string>): string {
    return this.secrets.seal(JSON.stringify(credentials), connectionId);
  }

  /**
   * Disconnect (spec 3, decision 0013): status `disconnected` (access epoch bumped, event published
   * so the contexts stop collecting) and the provider credentials destroyed, in one transaction.
   * Sessions still open on the connection are cancelled.
   */
  async disconnect(connectionId: string): Promise<ConnectionConfig> {
    return committingChange(this.orm, async (em) => {
      const config = await this.apply(em, connectionId, { status: 'disconnected' }, { providerCredentials: null, activationPending: false });
      await em.nativeUpdate(ConnectSession, { connectionId, status: { $in: ['created', 'started', 'consumed'] } }, { status: 'cancelled', failureReason: 'connection_disconnected', oauthStateHash: null });
      return config;
    });
  }

  /**
   * Installs the reviewed signal-limited activation policy (spec 3 session rule 3): the signals
   * collected from now on are `signals`, a non-empty subset of what the customer approved, and the
   * connection becomes active. Refused unless a completed enrollment waits for it.
   */
  async activate(connectionId: string, signals: readonly SelectedSignal[]): Promise<ConnectionConfig> {
    return committingChange(this.orm, async (em) => {
      const locked = await lockConnectionForUpdate(em, connectionId);
      if (!locked) throw new AdminError('connection_not_found');
      if (!locked.activation_pending) throw new AdminError('no_activation_pending: the connection has no completed connect session waiting for activation');
      const approved = new Set(locked.config.selectedSignals);
      const outside = signals.filter((s) => !approved.has(s));
      if (signals.length === 0 || outside.length > 0) {
        throw new AdminError(`signals_not_approved: the policy must name 1 to 4 of the signals the customer approved (${[...approved].join(', ')})${outside.length ? `; not approved: ${outside.join(', ')}` : ''}`);
      }
      return this.apply(em, connectionId, { status: 'active', selectedSignals: [...signals] }, { activationPending: false });
    });
  }

  /** The operator's Geotab database and server binding (spec 4.3 rule 3). `server` is a base URL the gateway may call. */
  async bindGeotab(connectionId: string, database: string, server: string): Promise<{ connectionId: string; database: string; server: string }> {
    const em = this.orm.em.fork();
    const row = await em.findOne(Connection, { id: connectionId });
    if (!row) throw new AdminError('connection_not_found');
    if (row.provider !== 'geotab') throw new AdminError('not_geotab: the binding applies to Geotab connections only');
    await em.upsert(GeotabBinding, { connectionId, database, server, createdAt: new Date() });
    return { connectionId, database, server };
  }

  async get(connectionId: string): Promise<ConnectionConfig | undefined> {
    const row = await this.orm.em.fork().findOne(Connection, { id: connectionId });
    return row?.config as ConnectionConfig | undefined;
  }

  /** Decrypts a connection's provider credentials (collectors ask for them over the bus later). */
  async providerCredentials(connectionId: string): Promise<Record<string, string> | undefined> {
    const row = await this.orm.em.fork().findOne(Connection, { id: connectionId });
    if (!row?.providerCredentials) return undefined;
    return JSON.parse(this.secrets.open(row.providerCredentials, connectionId)) as Record<string, string>;
  }

  /** The status transition of `next` (msgId = its event id: one per revision). */
  private async enqueueStatusChange(em: Orm['em'], previousStatus: ConnectionConfig['status'], next: ConnectionConfig): Promise<void> {
    const event: ConnectionStatusChangedV1 = {
      eventId: nameUuid('connection-status', next.connectionId, String(next.revision)),
      connectionId: next.connectionId,
      provider: next.provider,
      environment: next.environment,
      previousStatus,
      status: next.status,
      revision: next.revision,
      changedAt: next.updatedAt,
    };
    await em.insert(OutboxMessage, { subject: subjectFor(EVENTS.connectionStatus.subject, next.connectionId), msgId: event.eventId, payload: event, createdAt: new Date() });
  }

  private async enqueue(em: Orm['em'], config: ConnectionConfig): Promise<void> {
    await em.insert(OutboxMessage, {
      subject: subjectFor(EVENTS.connectionConfigChanged.subject, config.connectionId),
      msgId: `connection-config:${config.connectionId}:${config.revision}`,
      payload: config,
      createdAt: new Date(),
    });
  }
}

/** `config` when the domain's validator accepts it; else AdminError `invalid_config` listing every problem. */
function valid(config: ConnectionConfig): ConnectionConfig {
  const problems = validateConnectionConfig(config);
  if (problems.length > 0) throw new AdminError(`invalid_config: ${problems.map((p) => `${p.path} ${p.problem}`).join('; ')}`);
  return config;
}
