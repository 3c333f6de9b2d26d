/**
 * The local copy of each connection's configuration, kept by every context that collects or
 * serves connection data (architecture: a context never reads another context's schema; it keeps
 * projections fed by events). Shared here instead of copied into four apps: the table, its
 * migration class (each app lists it in its own migrations) and the consumer.
 *
 * Invariant: a row only moves forward — an upsert applies only when the incoming `revision` is
 * higher than the stored one, so redelivered or reordered snapshots can never roll a config back.
 * The message is acked only after that commit.
 */
import { Inject, Injectable, type BeforeApplicationShutdown, type OnApplicationBootstrap } from '@nestjs/common';
import { EVENTS, type ConnectionConfigV1, type Subscription } from '@switchyard/messaging';
import { SchemaMigration, type Orm } from '@switchyard/persistence';
import { RUNTIME, type ServiceRuntime } from '../runtime.js';

export class Migration0001ConnectionConfigProjection extends SchemaMigration {
  override up(): void {
    this.addSql(`
create table ${this.table('connection_config')} (
  connection_id uuid primary key,
  revision integer not null,
  config jsonb not null,
  received_at timestamptz not null default now()
);`);
  }
}

export class ConnectionConfigStore {
  constructor(private readonly orm: Orm) {}

  private get table() {
    return `"${this.orm.config.get('schema')}"."connection_config"`;
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

  async get(connectionId: string): Promise<ConnectionConfigV1 | undefined> {
    const rows = await this.orm.em.getConnection().execute<{ config: ConnectionConfigV1 }[]>(`select config from ${this.table} where connection_id = ?::uuid`, [connectionId]);
    return rows[0]?.config;
  }
}

@Injectable()
export class ConnectionConfigConsumer implements OnApplicationBootstrap, BeforeApplicationShutdown {
  readonly store: ConnectionConfigStore;
  private subscription: Subscription | undefined;

  constructor(@Inject(RUNTIME) private readonly runtime: ServiceRuntime) {
    this.store = new ConnectionConfigStore(runtime.orm);
  }

  async onApplicationBootstrap() {
    this.subscription = await this.runtime.bus.consume(
      {
        durable: `${this.runtime.service}-connection-config`,
        event: EVENTS.connectionConfigChanged,
        ackWaitMs: 30_000,
        maxDeliver: 10,
        maxAckPending: 64,
      },
      async ({ payload }) => {
        const applied = await this.store.apply(payload);
        this.runtime.logger.debug({ connectionId: payload.connectionId, revision: payload.revision, applied }, 'connection config received');
      },
    );
  }

  async beforeApplicationShutdown() {
    await this.subscription?.drain();
  }
}
