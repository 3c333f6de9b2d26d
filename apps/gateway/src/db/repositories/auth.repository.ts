/**
 * The authentication hot path: one indexed point lookup per credential, joined with the grant for
 * the connection in the path and with that connection's row (its status and access epoch), so a
 * request is authorized — including "local access disabled" for a disconnected connection — in one
 * round trip.
 */
import { Inject, Injectable } from '@nestjs/common';
import type { MikroORM } from '@mikro-orm/postgresql';
import { ORM } from '@switchyard/service-kit';
import { tableNamer } from '@switchyard/persistence';

export interface ConsumerKeyRow {
  id: string;
  secretHash: Buffer;
  revoked: boolean;
  credentialVersion: number;
  /** null when the key has no grant on the connection (or the connection does not exist). */
  permissions: string[] | null;
  /** The granted connection's access state; null without a grant. */
  connection: ConnectionAccess | null;
}

/** What authorization needs of a connection row: its status and the epoch cursors are bound to. */
export interface ConnectionAccess {
  status: string;
  accessEpoch: number;
}

export interface ApplicationRow {
  id: string;
  secretHash: Buffer;
  revoked: boolean;
  environment: 'sandbox' | 'production';
  credentialVersion: number;
  /** Bumped by every Connection-Token issued or revoked for the application; passed to the orchestrator's recheck. */
  tokenVersion: number;
}

export interface ConnectionTokenRow {
  id: string;
  applicationId: string;
  connectionId: string;
  secretHash: Buffer;
  revoked: boolean;
  connectionEnvironment: 'sandbox' | 'production';
  operations: string[] | null;
  history: boolean | null;
  connection: ConnectionAccess;
}

@Injectable()
export class AuthRepository {
  private readonly t: (name: string) => string;

  constructor(@Inject(ORM) private readonly orm: MikroORM) {
    this.t = tableNamer(orm);
  }

  async consumerKey(lookupId: string, connectionId: string | null): Promise<ConsumerKeyRow | undefined> {
    const rows = await this.orm.em.getConnection().execute<
      {
        id: string;
        secret_hash: Buffer;
        revoked: boolean;
        credential_version: number;
        permissions: string[] | null;
        connection_status: string | null;
        access_epoch: number | null;
      }[]
    >(
      `select k.id, k.secret_hash, k.revoked_at is not null as revoked, k.credential_version, g.permissions,
              c.config->>'status' as connection_status, c.access_epoch
         from ${this.t('consumer_key')} k
         left join ${this.t('consumer_grant')} g on g.consumer_key_id = k.id and g.connection_id = ?::uuid
         left join ${this.t('connection')} c on c.id = g.connection_id
        where k.lookup_id = ?`,
      [connectionId, lookupId],
    );
    const row = rows[0];
    return (
      row && {
        id: row.id,
        secretHash: row.secret_hash,
        revoked: row.revoked,
        credentialVersion: row.credential_version,
        permissions: row.permissions,
        connection: row.connection_status === null || row.access_epoch === null ? null : { status: row.connection_status, accessEpoch: row.access_epoch },
      }
    );
  }

  async application(lookupId: string): Promise<ApplicationRow | undefined> {
    const rows = await this.orm.em.getConnection().execute<
      { id: string; secret_hash: Buffer; revoked: boolean; environment: 'sandbox' | 'production'; credential_version: number; token_version: number }[]
    >(
      `select id, secret_hash, revoked_at is not null as revoked, environment, credential_version, token_version
         from ${this.t('application')} where lookup_id = ?`,
      [lookupId],
    );
    const row = rows[0];
    return (
      row && {
        id: row.id,
        secretHash: row.secret_hash,
        revoked: row.revoked,
        environment: row.environment,
        credentialVersion: row.credential_version,
        tokenVersion: row.token_version,
      }
    );
  }

  async connectionToken(lookupId: string): Promise<ConnectionTokenRow | undefined> {
    const rows = await this.orm.em.getConnection().execute<
      {
        id: string;
        application_id: string;
        connection_id: string;
        secret_hash: Buffer;
        revoked: boolean;
        environment: 'sandbox' | 'production';
        operations: string[] | null;
        history: boolean | null;
        connection_status: string;
        access_epoch: number;
      }[]
    >(
      `select t.id, t.application_id, t.connection_id, t.secret_hash, t.revoked_at is not null as revoked,
              c.environment, g.operations, g.history, c.config->>'status' as connection_status, c.access_epoch
         from ${this.t('connection_token')} t
         join ${this.t('connection')} c on c.id = t.connection_id
         left join ${this.t('application_grant')} g on g.application_id = t.application_id and g.connection_id = t.connection_id
        where t.lookup_id = ?`,
      [lookupId],
    );
    const row = rows[0];
    return (
      row && {
        id: row.id,
        applicationId: row.application_id,
        connectionId: row.connection_id,
        secretHash: row.secret_hash,
        revoked: row.revoked,
        connectionEnvironment: row.environment,
        operations: row.operations,
        history: row.history,
        connection: { status: row.connection_status, accessEpoch: row.access_epoch },
      }
    );
  }
}
