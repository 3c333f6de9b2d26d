/**
 * The operator console's SQL in the gateway's own schema (issue 30; decisions 0044, 0045): operator
 * credentials and console sessions looked up by their public lookup id (the caller compares the
 * hash in constant time), sessions opened and closed, and the connection overview — every
 * connection with its configuration, collection health and status reason, timestamps rendered as
 * RFC 3339 text in SQL. Nothing here reads another context's schema.
 * Invariant: a session row is found only together with its operator credential's revocation state,
 * so a revoked credential's sessions stop at the next request without a second write.
 */
import { Inject, Injectable } from '@nestjs/common';
import type { ConnectionConfig } from '@switchyard/domain';
import type { ConnectionRecord } from './connection.repository.js';
import { isoSql, query, tableNamer, type Orm } from '@switchyard/persistence';
import { ORM } from '@switchyard/service-kit';

export interface OperatorRow {
  id: string;
  name: string;
  secret_hash: Buffer;
  revoked: boolean;
}

export interface SessionRow {
  id: string;
  secret_hash: Buffer;
  operator_id: string;
  operator_name: string;
  expired: boolean;
  operator_revoked: boolean;
}

/** A connection row as the API reads it (connection.repository.ts), with what only the console shows. */
export interface ConnectionOverviewRow extends Omit<ConnectionRecord, 'status'> {
  config: ConnectionConfig;
  activation_pending: boolean;
  status_reason: string | null;
  status_changed_at: string | null;
}

@Injectable()
export class ConsoleRepository {
  private readonly t: (name: string) => string;

  constructor(@Inject(ORM) private readonly orm: Orm) {
    this.t = tableNamer(orm);
  }

  private sql<T>(text: string, params: unknown[] = []): Promise<T[]> {
    return query<T>(this.orm.em.fork(), text, params);
  }

  async operator(lookupId: string): Promise<OperatorRow | undefined> {
    const [row] = await this.sql<OperatorRow>(`select id, name, secret_hash, revoked_at is not null as revoked from ${this.t('operator_credential')} where lookup_id = ?`, [lookupId]);
    return row;
  }

  /** Opens a session; also deletes every expired one (sign-ins are rare, so this keeps the table small). */
  async openSession(row: { id: string; lookupId: string; secretHash: Buffer; operatorId: string; expiresAt: Date }): Promise<void> {
    await this.sql(`delete from ${this.t('console_session')} where expires_at <= now()`);
    await this.sql(`insert into ${this.t('console_session')} (id, lookup_id, secret_hash, operator_id, expires_at) values (?::uuid, ?, ?, ?::uuid, ?::timestamptz)`, [
      row.id,
      row.lookupId,
      row.secretHash,
      row.operatorId,
      row.expiresAt.toISOString(),
    ]);
  }

  async session(lookupId: string): Promise<SessionRow | undefined> {
    const [row] = await this.sql<SessionRow>(
      `select s.id, s.secret_hash, s.operator_id, o.name as operator_name, s.expires_at <= now() as expired, o.revoked_at is not null as operator_revoked
         from ${this.t('console_session')} s join ${this.t('operator_credential')} o on o.id = s.operator_id
        where s.lookup_id = ?`,
      [lookupId],
    );
    return row;
  }

  async closeSession(id: string): Promise<void> {
    await this.sql(`delete from ${this.t('console_session')} where id = ?::uuid`, [id]);
  }

  private overviewSql(where: string): string {
    return `select id, customer_id, provider, environment, config, activation_pending, status_reason, ${isoSql('status_changed_at')} as status_changed_at,
                   ${isoSql('last_success_at')} as last_success_at, last_error_code,
                   ${isoSql('extended_last_success_at')} as extended_last_success_at, extended_last_error_code,
                   ${isoSql('extended_next_retry_at')} as extended_next_retry_at
              from ${this.t('connection')} ${where}`;
  }

  /** Every connection, oldest first (a deployment holds hundreds, not millions: one page). */
  connections(limit: number): Promise<ConnectionOverviewRow[]> {
    return this.sql<ConnectionOverviewRow>(`${this.overviewSql('')} order by created_at, id limit ?`, [limit]);
  }

  async connection(id: string): Promise<ConnectionOverviewRow | undefined> {
    const [row] = await this.sql<ConnectionOverviewRow>(this.overviewSql('where id = ?::uuid'), [id]);
    return row;
  }
}
