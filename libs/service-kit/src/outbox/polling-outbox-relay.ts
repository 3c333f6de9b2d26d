/**
 * The loop every transactional outbox relay shares: after start (and once migrations are applied)
 * publish pending rows in batches until a batch comes back short, then poll again after an idle
 * pause; `flush()` lets a writer push its rows out right after its commit; shutdown stops the
 * timer and waits for the batch in flight. A batch is one transaction that claims rows, publishes
 * each and marks them, so a crash in between only republishes the same msgIds (absorbed by
 * JetStream's duplicate window). What a batch is — which table, which lock, which event — is the
 * subclass's `claim`, `publish` and `markPublished`.
 * Retention (issue 14, docs/reliability.md): once an hour the relay also deletes rows published
 * more than OUTBOX_RETENTION_MS ago, through the subclass's `prunePublished` (an outbox whose rows
 * carry no publication time, or that another rule prunes, keeps the default: nothing).
 * Backlog (issue 27, decision 0041): `switchyard_outbox_backlog_messages{outbox}` is the subclass's
 * `countPending` — rows committed and not yet published — read when Prometheus scrapes (5 s cache;
 * a failed read leaves it absent, never a zero). Every replica reports the same figure.
 */
import type { BeforeApplicationShutdown, OnApplicationBootstrap } from '@nestjs/common';
import type { Em } from '@switchyard/persistence';
import { crashPoint } from '../crash-points.js';
import type { ServiceRuntime } from '../runtime.js';

/** Published outbox rows are kept 7 days (far past JetStream's 2-minute duplicate window), then deleted. */
export const OUTBOX_RETENTION_MS = 7 * 86_400_000;
const PRUNE_EVERY_MS = 60 * 60 * 1000;

export abstract class PollingOutboxRelay<Row> implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<unknown> | undefined;
  private stopped = false;
  private lastPrunedAt = 0;

  protected constructor(
    protected readonly runtime: ServiceRuntime,
    private readonly options: { label: string; batchSize: number; idlePollMs: number; firstDelayMs: number; /** The `outbox` label of its backlog: the table it relays. */ outbox: string },
  ) {}

  /** Rows committed and not yet published (the backlog gauge's figure). */
  protected abstract countPending(em: Em): Promise<number>;

  /** Up to `limit` pending rows, in publishing order, under whatever lock the outbox needs; [] when another relay holds it. */
  protected abstract claim(em: Em, limit: number): Promise<Row[]>;

  /** Publishes one claimed row with its stable msgId. */
  protected abstract publish(row: Row): Promise<unknown>;

  /** Marks the claimed rows published (never called with none). */
  protected abstract markPublished(em: Em, rows: Row[]): Promise<void>;

  /** Deletes rows published before `before`; returns how many. Default: none (see the header). */
  protected prunePublished(_em: Em, _before: Date): Promise<number> {
    return Promise.resolve(0);
  }

  /** One retention pass now; returns how many published rows were deleted. */
  prune(now = new Date()): Promise<number> {
    this.lastPrunedAt = now.getTime();
    return this.prunePublished(this.runtime.orm.em.fork(), new Date(now.getTime() - OUTBOX_RETENTION_MS));
  }

  /** Publishes up to `batchSize` pending rows and marks them, in one transaction; returns how many. */
  private publishBatch(): Promise<number> {
    return this.runtime.orm.em.fork().transactional(async (em) => {
      const rows = await this.claim(em, this.options.batchSize);
      for (const row of rows) {
        await this.publish(row);
        crashPoint('relay-after-publish'); // a row published, none of the claimed rows marked yet
      }
      if (rows.length > 0) await this.markPublished(em, rows);
      return rows.length;
    });
  }

  onApplicationBootstrap() {
    const outbox = this.options.outbox;
    this.runtime.metrics.addSource({
      name: `outbox_${outbox}`,
      families: ['outboxBacklog'],
      ttlMs: 5_000,
      read: async () => [{ family: 'outboxBacklog' as const, labels: { outbox }, value: await this.countPending(this.runtime.orm.em.fork()) }],
    });
    this.schedule(this.options.firstDelayMs);
  }

  async beforeApplicationShutdown() {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
  }

  /** Publishes everything pending now; returns how many rows went out. */
  async flush(): Promise<number> {
    let total = 0;
    for (;;) {
      const sent = await this.publishBatch();
      total += sent;
      if (sent < this.options.batchSize) return total;
    }
  }

  private schedule(delay: number) {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      if (!this.runtime.state.migrated) return this.schedule(this.options.idlePollMs);
      this.running = this.flush()
        .then(async () => {
          if (Date.now() - this.lastPrunedAt < PRUNE_EVERY_MS) return;
          const pruned = await this.prune();
          if (pruned > 0) this.runtime.logger.info({ pruned }, `${this.options.label}: published rows pruned (retention)`);
        })
        .catch((error: unknown) => this.runtime.logger.warn({ err: error }, `${this.options.label}: publish failed, will retry`))
        .finally(() => this.schedule(this.options.idlePollMs));
    }, delay);
  }
}
