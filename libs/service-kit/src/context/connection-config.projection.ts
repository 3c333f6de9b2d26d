/**
 * The local copy of each connection's configuration, kept by every context that collects or
 * serves connection data (architecture: a context never reads another context's schema; it keeps
 * projections fed by events). Shared here instead of copied into four apps: the table, its
 * migration class (each app lists it in its own migrations) and the consumer.
 *
 * Invariant: a row only moves forward — an upsert applies only when the incoming `revision` is
 * higher than the stored one, so redelivered or reordered snapshots can never roll a config back.
 * The message is acked only after that commit. The table is written with hand-tuned SQL (the
 * conditional upsert below); `ConnectionConfigEntity` describes the same table to the ORM only so
 * each app's schema-drift check compares the migration against a definition instead of reporting
 * the table as unknown.
 */
import { defineEntity, p } from '@mikro-orm/postgresql';
import { Inject, Injectable, type BeforeApplicationShutdown, type OnApplicationBootstrap } from '@nestjs/common';
import { EVENTS, type ConnectionConfigV1, type Subscription } from '@switchyard/messaging';
import { SchemaMigration, type Em, type Orm } from '@switchyard/persistence';
import { whenMigrated } from '../health.js';
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

/** The migration's table as the ORM sees it; list it in the app's entities (drift check). */
export const ConnectionConfigEntity = defineEntity({
  name: 'ConnectionConfigProjection',
  tableName: 'connection_config',
  properties: {
    connectionId: p.uuid().primary(),
    revision: p.integer(),
    config: p.json(),
    receivedAt: p.datetime().defaultRaw('now()'),
  },
});

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

  /** With `em`, reads on its transaction (a caller holding locks must not wait for a second pool connection). */
  async get(connectionId: string, em?: Em): Promise<ConnectionConfigV1 | undefined> {
    const rows = await (em ?? this.orm.em)
      .getConnection()
      .execute<{ config: ConnectionConfigV1 }[]>(`select config from ${this.table} where connection_id = ?::uuid`, [connectionId], 'all', em?.getTransactionContext());
    return rows[0]?.config;
  }
}

@Injectable()
export class ConnectionConfigConsumer implements OnApplicationBootstrap, BeforeApplicationShutdown {
  readonly store: ConnectionConfigStore;
  private subscription: Subscription | undefined;
  private waiting: Promise<void> | undefined;
  private stopped = false;

  constructor(@Inject(RUNTIME) private readonly runtime: ServiceRuntime) {
    this.store = new ConnectionConfigStore(runtime.orm);
  }

  async onApplicationBootstrap() {
    if (this.runtime.state.migrated) {
      await this.start();
      return;
    }
    // MIGRATE_ON_START=false with migrations pending: the table may not exist yet. Consuming now
    // would fail every delivery into the DLQ; start once a release step has applied them.
    this.waiting = whenMigrated(this.runtime)
      .then(async (migrated) => {
        if (migrated && !this.stopped) await this.start();
      })
      .catch((error: unknown) => this.runtime.logger.error({ err: error }, 'connection config consumer did not start'));
  }

  private async start() {
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
    this.stopped = true;
    await this.waiting;
    await this.subscription?.drain();
  }
}
