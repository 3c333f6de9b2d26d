/**
 * The SQL of the connection-config projection: the conditional upsert the handler applies and
 * the read every context's services use.
 *
 * Invariant: a row only moves forward — the upsert applies only when the incoming `revision` is
 * higher than the stored one, so redelivered or reordered snapshots can never roll a config back.
 */
import type { ConnectionConfigV1 } from '@switchyard/messaging';
import { readQuery, tableNamer, type Em, type Orm } from '@switchyard/persistence';

export class ConnectionConfigStore {
  private readonly table: string;

  constructor(private readonly orm: Orm) {
    this.table = tableNamer(orm)('connection_config');
  }

  /** Returns true when the snapshot was newer than the stored one and was applied. */
  async apply(config: ConnectionConfigV1): Promise<boolean> {
    const rows = await this.orm.em.getConnection().execute<{ connection_id: string }[]>(
      `insert into ${this.table} (connection_id, revision, config) values (?::uuid, ?, ?::jsonb)
       on conflict (connection_id) do update set revision = excluded.revision, config = excluded.config, received_at = now()
       where ${this.table}.revision < excluded.revision
       returning connection_id`,
      [config.connectionId, config.revision, JSON.stringify(config)],
    );
    return rows.length > 0;
  }

  /** Every configuration held (the metrics' pass over all connections), ordered by connection id; disconnected ones left out. */
  async all(): Promise<ConnectionConfigV1[]> {
    const rows = await this.orm.em
      .getConnection()
      .execute<{ config: ConnectionConfigV1 }[]>(`select config from ${this.table} where config->>'status' <> 'disconnected' order by connection_id`, []);
    return rows.map((r) => r.config);
  }

  /** With `em`, reads on its transaction (a caller holding locks must not wait for a second pool connection); prepared outside one (readQuery). */
  async get(connectionId: string, em?: Em): Promise<ConnectionConfigV1 | undefined> {
    const rows = await readQuery<{ config: ConnectionConfigV1 }>(em ?? this.orm.em, `select config from ${this.table} where connection_id = ?::uuid`, [connectionId]);
    return rows[0]?.config;
  }

  /** The stored configurations of some connections (one statement), by connection id; unknown ones are absent. */
  async getMany(connectionIds: readonly string[]): Promise<Map<string, ConnectionConfigV1>> {
    if (connectionIds.length === 0) return new Map();
    const rows = await this.orm.em
      .getConnection()
      .execute<{ config: ConnectionConfigV1 }[]>(`select config from ${this.table} where connection_id in (select value::uuid from json_array_elements_text(?::json))`, [JSON.stringify(connectionIds)]);
    return new Map(rows.map((r) => [r.config.connectionId, r.config]));
  }
}
