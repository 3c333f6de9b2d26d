/** Reads of the gateway's connection rows, timestamps rendered as RFC 3339 text in SQL. */
import { Inject, Injectable } from '@nestjs/common';
import type { MikroORM } from '@mikro-orm/postgresql';
import type { ConnectionConfig, Provider } from '@switchyard/domain';
import { ORM } from '@switchyard/service-kit';
import { isoSql, tableNamer } from './sql.js';

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
}
