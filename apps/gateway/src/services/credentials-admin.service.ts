/**
 * Issuing and revoking credentials and grants (operator CLI, sandbox seeding). Plain class over
 * the ORM so the CLI can use it without starting the HTTP app.
 * Invariants: a token is returned exactly once, at issue, and only its SHA-256 is stored; every
 * grant change or revocation bumps the holder's credentialVersion, which invalidates cursors
 * issued under the old grant (spec 4.1 rule 6). Every change of an application's credential state
 * (creation, grant change, revocation, a Connection-Token issued or revoked) enqueues, in the same
 * transaction, the application's whole grant snapshot — grants and active Connection-Tokens — on
 * the outbox (`events.credentials.application.<id>`, msgId
 * `application-grant:<id>:<credentialVersion>:<tokenVersion>`): the sync-orchestrator's recheck
 * (spec 5 rule 2) reads that projection. A token change bumps the application's tokenVersion, not
 * its credentialVersion (cursors bound to the latter survive a token issued elsewhere; a cursor is
 * bound to its own token anyway). Versions are bumped in SQL before the snapshot is read, so the
 * application row lock orders concurrent changes: each snapshot sees every change committed
 * before it, and no two publish the same version pair. Every change of an existing credential or
 * grant is a `committingChange` (credential-change-hooks.ts): every gateway process's principal
 * cache is cleared at its commit, so a revoke takes effect at once (decision 0031).
 */
import { randomUUID } from 'node:crypto';
import type { Orm } from '@switchyard/persistence';
import type { Environment } from '@switchyard/domain';
import { EVENTS, subjectFor, type ApplicationGrantV1 } from '@switchyard/messaging';
import { Application, ApplicationGrant, Connection, ConnectionToken, ConsumerGrant, ConsumerKey, OperatorCredential, OutboxMessage } from '../db/entities/index.js';
import { bumpApplicationVersion } from '../db/repositories/credentials-admin.repository.js';
import { CONSUMER_PERMISSIONS, SYNC_OPERATIONS, type ConsumerPermission, type SyncOperation } from '../auth/principal.js';
import { committingChange } from './credential-change-hooks.js';
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
    await committingChange(this.orm, async (em) => {
      await em.insert(Application, { ...row, name, environment, credentialVersion: 1, tokenVersion: 0 });
      await this.enqueueApplicationSnapshot(em, row.id);
    });
    return issued;
  }

  async createConsumerKey(name: string): Promise<Issued> {
    const { row, issued } = newCredentialRow('consumerKey');
    await this.orm.em.fork().insert(ConsumerKey, { ...row, name, credentialVersion: 1 });
    return issued;
  }

  /**
   * An operator credential (`op_…`): it signs in to the console (/console) and nothing else — no API
   * route accepts it, and no consumer key or application secret signs in to the console.
   */
  async createOperator(name: string): Promise<Issued> {
    const { row, issued } = newCredentialRow('operatorKey');
    await this.orm.em.fork().insert(OperatorCredential, { ...row, name });
    return issued;
  }

  async issueConnectionToken(applicationId: string, connectionId: string): Promise<Issued> {
    const { row, issued } = newCredentialRow('connectionToken');
    await committingChange(this.orm, async (em) => {
      const app = await em.findOne(Application, { id: applicationId, revokedAt: null });
      if (!app) throw new AdminError('application_not_found');
      if (!(await em.findOne(Connection, { id: connectionId }))) throw new AdminError('connection_not_found');
      await bumpApplicationVersion(em, applicationId, 'token_version');
      await em.insert(ConnectionToken, { ...row, applicationId, connectionId });
      await this.enqueueApplicationSnapshot(em, applicationId);
    });
    return issued;
  }

  /** Replaces the application's sync operation grant on a connection (empty list = no grant). */
  async grantApplication(applicationId: string, connectionId: string, operations: SyncOperation[], history: boolean): Promise<void> {
    for (const op of operations) if (!SYNC_OPERATIONS.includes(op)) throw new AdminError('unknown_operation');
    await committingChange(this.orm, async (em) => {
      const app = await em.findOne(Application, { id: applicationId });
      if (!app) throw new AdminError('application_not_found');
      if (!(await em.findOne(Connection, { id: connectionId }))) throw new AdminError('connection_not_found');
      await em.nativeDelete(ApplicationGrant, { applicationId, connectionId });
      if (operations.length > 0) {
        await em.insert(ApplicationGrant, { applicationId, connectionId, operations: [...new Set(operations)], history, createdAt: new Date(), updatedAt: new Date() });
      }
      await bumpApplicationVersion(em, applicationId, 'credential_version');
      await this.enqueueApplicationSnapshot(em, applicationId);
    });
  }

  /** Replaces the consumer key's permissions on a connection (empty list = revoke the grant). */
  async grantConsumer(consumerKeyId: string, connectionId: string, permissions: ConsumerPermission[]): Promise<void> {
    for (const p of permissions) if (!CONSUMER_PERMISSIONS.includes(p)) throw new AdminError('unknown_permission');
    await committingChange(this.orm, async (em) => {
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

  /**
   * Revokes an application, consumer key or connection token by id or display prefix. Idempotent:
   * only rows not yet revoked change, so a credential keeps its first `revokedAt`; when every match
   * was already revoked nothing is written (no version bump, no snapshot on the outbox) and the
   * answer says so. No match at all is `credential_not_found`.
   */
  async revoke(kind: 'application' | 'consumer-key' | 'connection-token' | 'operator', idOrPrefix: string): Promise<{ alreadyRevoked: boolean }> {
    const entity = kind === 'application' ? Application : kind === 'consumer-key' ? ConsumerKey : kind === 'operator' ? OperatorCredential : ConnectionToken;
    const where = /^[0-9a-f-]{36}$/i.test(idOrPrefix) ? { id: idOrPrefix } : { displayPrefix: idOrPrefix };
    const active = { ...where, revokedAt: null };
    const alreadyRevoked = new AdminError('already_revoked');
    try {
      await committingChange(this.orm, async (em) => {
        if (kind === 'connection-token') {
          // The owning applications' rows are locked (by the bump) before the token changes, in id order.
          const owners = [...new Set((await em.find(ConnectionToken, active, { fields: ['applicationId'] })).map((t) => t.applicationId))].sort();
          if (owners.length === 0) throw (await em.count(ConnectionToken, where)) > 0 ? alreadyRevoked : new AdminError('credential_not_found');
          for (const applicationId of owners) await bumpApplicationVersion(em, applicationId, 'token_version');
          // A concurrent revoke may have won while this one waited for the locks: undo the bumps.
          if ((await em.nativeUpdate(ConnectionToken, active, { revokedAt: new Date() })) === 0) throw alreadyRevoked;
          for (const applicationId of owners) await this.enqueueApplicationSnapshot(em, applicationId);
          return;
        }
        const changed = await em.nativeUpdate(entity as typeof Application, active, { revokedAt: new Date() });
        if (changed === 0) throw (await em.count(entity as typeof Application, where)) > 0 ? alreadyRevoked : new AdminError('credential_not_found');
        if (kind === 'application') {
          const app = await em.findOneOrFail(Application, where);
          await bumpApplicationVersion(em, app.id, 'credential_version');
          await this.enqueueApplicationSnapshot(em, app.id);
        }
      });
    } catch (error) {
      if (error === alreadyRevoked) return { alreadyRevoked: true };
      throw error;
    }
    return { alreadyRevoked: false };
  }

  /**
   * Re-enqueues every application's current snapshot (a new msgId per call): for a deployment whose
   * applications predate the projection, or an orchestrator whose projection was rebuilt. Consumers
   * ignore versions they already hold. Returns how many snapshots were enqueued.
   */
  async republishApplicationSnapshots(): Promise<number> {
    const tag = Date.now().toString(36);
    return this.orm.em.fork().transactional(async (em) => {
      const apps = await em.find(Application, {}, { fields: ['id'], orderBy: { createdAt: 'asc' } });
      for (const app of apps) await this.enqueueApplicationSnapshot(em, app.id, `:republish-${tag}`);
      return apps.length;
    });
  }

  /** The application's whole grant state (grants, active tokens) at its current versions, on the outbox (same transaction). */
  private async enqueueApplicationSnapshot(em: Orm['em'], applicationId: string, msgIdSuffix = ''): Promise<void> {
    const app = await em.findOneOrFail(Application, { id: applicationId }, { refresh: true });
    const grants = await em.find(ApplicationGrant, { applicationId }, { orderBy: { connectionId: 'asc' }, refresh: true });
    const tokens = await em.find(ConnectionToken, { applicationId, revokedAt: null }, { fields: ['id', 'connectionId'], orderBy: { connectionId: 'asc', id: 'asc' }, refresh: true });
    const snapshot: ApplicationGrantV1 = {
      applicationId,
      environment: app.environment as Environment,
      revoked: app.revokedAt !== null && app.revokedAt !== undefined,
      credentialVersion: app.credentialVersion,
      grants: grants.map((g) => ({ connectionId: g.connectionId, operations: g.operations as SyncOperation[], history: g.history })),
      tokenVersion: app.tokenVersion,
      connectionTokens: tokens.map((t) => ({ id: t.id, connectionId: t.connectionId })),
      updatedAt: new Date().toISOString(),
    };
    await em.insert(OutboxMessage, {
      subject: subjectFor(EVENTS.applicationGrantChanged.subject, applicationId),
      msgId: `application-grant:${applicationId}:${app.credentialVersion}:${app.tokenVersion}${msgIdSuffix}`,
      payload: snapshot,
      createdAt: new Date(),
    });
  }

  /** Listing for operators: display prefixes only, never hashes. */
  async list() {
    const em = this.orm.em.fork();
    const fields = ['id', 'name', 'displayPrefix', 'createdAt', 'revokedAt'] as const;
    return {
      applications: await em.find(Application, {}, { fields: [...fields, 'environment'], orderBy: { createdAt: 'asc' } }),
      consumerKeys: await em.find(ConsumerKey, {}, { fields: [...fields], orderBy: { createdAt: 'asc' } }),
      connectionTokens: await em.find(ConnectionToken, {}, { fields: ['id', 'applicationId', 'connectionId', 'displayPrefix', 'createdAt', 'revokedAt'], orderBy: { createdAt: 'asc' } }),
      operators: await em.find(OperatorCredential, {}, { fields: [...fields], orderBy: { createdAt: 'asc' } }),
      consumerGrants: await em.find(ConsumerGrant, {}),
      applicationGrants: await em.find(ApplicationGrant, {}),
    };
  }
}
