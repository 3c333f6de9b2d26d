/**
 * Creating connections and changing their configuration (operator CLI, sandbox seeding).
 * Invariant: the configuration row and the outbox event announcing it are written in one
 * transaction, with `revision` incremented under a row lock, so contexts receive every change in
 * revision order exactly as stored (the relay publishes with msgId `connection-config:<id>:<rev>`).
 * A change of status to `disconnected` also bumps the connection's access epoch in the same
 * transaction, which refuses every cursor issued before it (docs/decisions/0013).
 */
import { randomUUID } from 'node:crypto';
import type { Orm } from '@switchyard/persistence';
import { defaultConnectionConfig, validateConnectionConfig, type ConnectionConfig, type Environment, type Provider } from '@switchyard/domain';
import { EVENTS, subjectFor } from '@switchyard/messaging';
import { Connection, OutboxMessage } from '../db/entities/index.js';
import { lockConnectionForUpdate } from '../db/repositories/connections-admin.repository.js';
import { AdminError } from './credentials-admin.service.js';
import type { SecretBox } from './secret-box.js';

/** What an operator may change; identity fields (id, provider, environment, revision) are not. */
export type ConnectionConfigPatch = Partial<Omit<ConnectionConfig, 'connectionId' | 'provider' | 'environment' | 'revision' | 'updatedAt'>>;

export class ConnectionsAdmin {
  constructor(
    private readonly orm: Orm,
    private readonly secrets: SecretBox,
  ) {}

  /** `id` is for tests that compare two deployments holding the same connection (public ids derive from it); default a fresh UUID. */
  async create(input: { customerId: string; provider: Provider; environment: Environment; providerCredentials?: Record<string, string>; id?: string }): Promise<ConnectionConfig> {
    const id = input.id ?? randomUUID();
    const config = defaultConnectionConfig(id, input.provider, input.environment);
    await this.orm.em.fork().transactional(async (em) => {
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

  async configure(connectionId: string, patch: ConnectionConfigPatch): Promise<ConnectionConfig> {
    return this.orm.em.fork().transactional(async (em) => {
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
      const problems = validateConnectionConfig(next);
      if (problems.length > 0) throw new AdminError(`invalid_config: ${problems.map((p) => `${p.path} ${p.problem}`).join('; ')}`);
      // The row lock above makes this read-modify-write of the epoch safe.
      const disconnects = current.status !== 'disconnected' && next.status === 'disconnected';
      const accessEpoch = locked.access_epoch + (disconnects ? 1 : 0);
      await em.nativeUpdate(Connection, { id: connectionId }, { config: next, configRevision: next.revision, accessEpoch, updatedAt: new Date() });
      await this.enqueue(em, next);
      return next;
    });
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

  private async enqueue(em: Orm['em'], config: ConnectionConfig): Promise<void> {
    await em.insert(OutboxMessage, {
      subject: subjectFor(EVENTS.connectionConfigChanged.subject, config.connectionId),
      msgId: `connection-config:${config.connectionId}:${config.revision}`,
      payload: config,
      createdAt: new Date(),
    });
  }
}
