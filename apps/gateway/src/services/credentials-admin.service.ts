/**
 * Issuing and revoking credentials and grants (operator CLI, sandbox seeding). Plain class over
 * the ORM so the CLI can use it without starting the HTTP app.
 * Invariants: a token is returned exactly once, at issue, and only its SHA-256 is stored; every
 * grant change or revocation bumps the holder's credentialVersion, which invalidates cursors
 * issued under the old grant (spec 4.1 rule 6).
 */
import { randomUUID } from 'node:crypto';
import type { Orm } from '@switchyard/persistence';
import type { Environment } from '@switchyard/domain';
import { Application, ApplicationGrant, Connection, ConnectionToken, ConsumerGrant, ConsumerKey } from '../db/entities/index.js';
import { CONSUMER_PERMISSIONS, SYNC_OPERATIONS, type ConsumerPermission, type SyncOperation } from '../auth/principal.js';
import { issueCredential, type CredentialKind } from './credential-format.js';

export class AdminError extends Error {
  constructor(readonly code: string) {
    super(code);
    this.name = 'AdminError';
  }
}

export interface Issued {
  id: string;
  token: string;
  displayPrefix: string;
}

/** A fresh token and the row columns that store it (hash and display prefix only). */
function newCredentialRow(kind: CredentialKind) {
  const credential = issueCredential(kind);
  const id = randomUUID();
  return {
    row: { id, lookupId: credential.lookupId, displayPrefix: credential.displayPrefix, secretHash: credential.hash, createdAt: new Date() },
    issued: { id, token: credential.token, displayPrefix: credential.displayPrefix } satisfies Issued,
  };
}

export class CredentialsAdmin {
  constructor(private readonly orm: Orm) {}

  async createApplication(name: string, environment: Environment): Promise<Issued> {
    const { row, issued } = newCredentialRow(environment === 'sandbox' ? 'sandboxSecret' : 'prodSecret');
    await this.orm.em.fork().insert(Application, { ...row, name, environment, credentialVersion: 1 });
    return issued;
  }

  async createConsumerKey(name: string): Promise<Issued> {
    const { row, issued } = newCredentialRow('consumerKey');
    await this.orm.em.fork().insert(ConsumerKey, { ...row, name, credentialVersion: 1 });
    return issued;
  }

  async issueConnectionToken(applicationId: string, connectionId: string): Promise<Issued> {
    const em = this.orm.em.fork();
    const app = await em.findOne(Application, { id: applicationId, revokedAt: null });
    if (!app) throw new AdminError('application_not_found');
    if (!(await em.findOne(Connection, { id: connectionId }))) throw new AdminError('connection_not_found');
    const { row, issued } = newCredentialRow('connectionToken');
    await em.insert(ConnectionToken, { ...row, applicationId, connectionId });
    return issued;
  }

  /** Replaces the application's sync operation grant on a connection (empty list = no grant). */
  async grantApplication(applicationId: string, connectionId: string, operations: SyncOperation[], history: boolean): Promise<void> {
    for (const op of operations) if (!SYNC_OPERATIONS.includes(op)) throw new AdminError('unknown_operation');
    await this.orm.em.fork().transactional(async (em) => {
      const app = await em.findOne(Application, { id: applicationId });
      if (!app) throw new AdminError('application_not_found');
      if (!(await em.findOne(Connection, { id: connectionId }))) throw new AdminError('connection_not_found');
      await em.nativeDelete(ApplicationGrant, { applicationId, connectionId });
      if (operations.length > 0) {
        await em.insert(ApplicationGrant, { applicationId, connectionId, operations: [...new Set(operations)], history, createdAt: new Date(), updatedAt: new Date() });
      }
      await em.nativeUpdate(Application, { id: applicationId }, { credentialVersion: app.credentialVersion + 1 });
    });
  }

  /** Replaces the consumer key's permissions on a connection (empty list = revoke the grant). */
  async grantConsumer(consumerKeyId: string, connectionId: string, permissions: ConsumerPermission[]): Promise<void> {
    for (const p of permissions) if (!CONSUMER_PERMISSIONS.includes(p)) throw new AdminError('unknown_permission');
    await this.orm.em.fork().transactional(async (em) => {
      const key = await em.findOne(ConsumerKey, { id: consumerKeyId });
      if (!key) throw new AdminError('consumer_key_not_found');
      if (!(await em.findOne(Connection, { id: connectionId }))) throw new AdminError('connection_not_found');
      await em.nativeDelete(ConsumerGrant, { consumerKeyId, connectionId });
      if (permissions.length > 0) {
        await em.insert(ConsumerGrant, { consumerKeyId, connectionId, permissions: [...new Set(permissions)], createdAt: new Date() });
      }
      await em.nativeUpdate(ConsumerKey, { id: consumerKeyId }, { credentialVersion: key.credentialVersion + 1 });
    });
  }

  /** Revokes an application, consumer key or connection token by id or display prefix. */
  async revoke(kind: 'application' | 'consumer-key' | 'connection-token', idOrPrefix: string): Promise<void> {
    const entity = kind === 'application' ? Application : kind === 'consumer-key' ? ConsumerKey : ConnectionToken;
    const where = /^[0-9a-f-]{36}$/i.test(idOrPrefix) ? { id: idOrPrefix } : { displayPrefix: idOrPrefix };
    const em = this.orm.em.fork();
    const changed =
      kind === 'connection-token'
        ? await em.nativeUpdate(ConnectionToken, where, { revokedAt: new Date() })
        : await em.nativeUpdate(entity as typeof Application, where, { revokedAt: new Date() });
    if (changed === 0) throw new AdminError('credential_not_found');
  }

  /** Listing for operators: display prefixes only, never hashes. */
  async list() {
    const em = this.orm.em.fork();
    const fields = ['id', 'name', 'displayPrefix', 'createdAt', 'revokedAt'] as const;
    return {
      applications: await em.find(Application, {}, { fields: [...fields, 'environment'], orderBy: { createdAt: 'asc' } }),
      consumerKeys: await em.find(ConsumerKey, {}, { fields: [...fields], orderBy: { createdAt: 'asc' } }),
      connectionTokens: await em.find(ConnectionToken, {}, { fields: ['id', 'applicationId', 'connectionId', 'displayPrefix', 'createdAt', 'revokedAt'], orderBy: { createdAt: 'asc' } }),
      consumerGrants: await em.find(ConsumerGrant, {}),
      applicationGrants: await em.find(ApplicationGrant, {}),
    };
  }
}
