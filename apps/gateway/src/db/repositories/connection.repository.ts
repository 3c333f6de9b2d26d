/**
 * Reads of the gateway's connection rows, timestamps rendered as RFC 3339 text in SQL, and the one
 * write of collection health (`applyHealth`, fed by handlers/connection-health.handler.ts).
 */
import { Inject, Injectable } from '@nestjs/common';
import type { MikroORM } from '@mikro-orm/postgresql';
import type { ConnectionConfig, Provider } from '@switchyard/domain';
import type { ConnectionHealthV1 } from '@switchyard/messaging';
import { ORM } from '@switchyard/service-kit';
import { isoSql, tableNamer } from '@switchyard/persistence';

export interface ConnectionRecord {
  id: string;
  customer_id: string;
  provider: Provider;
  environment: 'sandbox' | 'production';
  status: ConnectionConfig['status'];
  last_success_at: string | null;
  last_error_code: string | null;
  extended_last_success_at: string | null;
  extended_last_error_code: string | null;
  extended_next_retry_at: string | null;
}

@Injectable()
export class ConnectionRepository {
  private readonly t: (name: string) => string;

  constructor(@Inject(ORM) private readonly orm: MikroORM) {
    this.t = tableNamer(orm);
  }

  async findById(id: string): Promise<ConnectionRecord | undefined> {
    const rows = await this.orm.em.getConnection().execute<ConnectionRecord[]>(
      `select id, customer_id, provider, environment, config->>'status' as status,
              ${isoSql('last_success_at')} as last_success_at, last_error_code,
              ${isoSql('extended_last_success_at')} as extended_last_success_at, extended_last_error_code,
              ${isoSql('extended_next_retry_at')} as extended_next_retry_at
         from ${this.t('connection')} where id = ?::uuid`,
      [id],
    );
    return rows[0];
  }

  /**
   * Applies one health observation in a single statement (atomic per row). Columns by scope:
   * `core` → last_success_at / last_error_code; `extended` → extended_last_success_at /
   * extended_last_error_code / extended_next_retry_at. Success sets the success time and CLEARS the
   * error code (the code is the connection's current error, not a history: with no error timestamp
   * stored, a code beside a newer success could not be dated); failure sets the code (and, for
   * extended, the next retry). Ordering: nothing changes unless `observedAt` is later than the
   * stored success time of the scope, so `last_success_at` never moves backwards and an old
   * failure redelivered after a newer success is ignored. Two failures are not ordered against
   * each other (no error timestamp column): the one applied last wins.
   * Returns whether the row changed (false: unknown connection, or an older observation).
   */
  async applyHealth(event: ConnectionHealthV1): Promise<boolean> {
    const extended = event.scope === 'extended';
    const success = extended ? 'extended_last_success_at' : 'last_success_at';
    const code = extended ? 'extended_last_error_code' : 'last_error_code';
    const sets =
      event.outcome === 'success'
        ? [`${success} = ?::timestamptz`, `${code} = null`, ...(extended ? ['extended_next_retry_at = null'] : [])]
        : [`${code} = ?`, ...(extended ? ['extended_next_retry_at = ?::timestamptz'] : [])];
    const values = event.outcome === 'success' ? [event.observedAt] : [event.errorCode, ...(extended ? [event.nextRetryAt] : [])];
    const rows = await this.orm.em.getConnection().execute<{ id: string }[]>(
      `update ${this.t('connection')} set ${sets.join(', ')}, updated_at = now()
        where id = ?::uuid and (${success} is null or ${success} < ?::timestamptz) returning id`,
      [...values, event.connectionId, event.observedAt],
    );
    return rows.length === 1;
  }
}
