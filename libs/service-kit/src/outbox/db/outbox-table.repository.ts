/**
 * The SQL of a context's transactional outbox table (`outbox`: id, subject, msg_id unique, payload
 * jsonb, created_at, published_at — the gateway's migration 0002, the sync-orchestrator's 0015):
 * `enqueue` on the writer's transaction, and the relay's claim / mark / prune (table-outbox-relay.ts).
 * Invariants: claim and mark run on the relay's one transaction, so the advisory lock `claim`
 * takes (one per schema and `lockKey`) holds until the rows it returned are marked in the same
 * commit — one relay publishes at a time across replicas, in id order; `enqueue` ignores a msg_id
 * already written, so a writer that records the same fact twice (a redelivered message) adds one row.
 */
import { query, tableNamer, type Em } from '@switchyard/persistence';

/** The DDL of the table, in the schema `s` (quoted): the gateway's migration 0002, the sync-orchestrator's 0015. */
export const outboxTableSql = (s: string): string => `
create table ${s}.outbox (
  id bigserial primary key,
  subject text not null,
  msg_id text not null unique,
  payload jsonb not null,
  created_at timestamptz not null default now(),
  published_at timestamptz
);
create index outbox_unpublished on ${s}.outbox (id) where published_at is null;
`;

export interface OutboxRow {
  id: string;
  subject: string;
  msg_id: string;
  payload: unknown;
}

export class OutboxTableRepository {
  /** `lockKey`: the relay's advisory lock class (e.g. 0x53574f42 "SWOB"), paired with the schema. */
  constructor(private readonly lockKey: number) {}

  /** Writes one event on the caller's transaction; false when its msg_id was written before. */
  async enqueue(em: Em, subject: string, msgId: string, payload: unknown): Promise<boolean> {
    const rows = await query<{ id: string }>(
      em,
      `insert into ${tableNamer(em)('outbox')} (subject, msg_id, payload) values (?, ?, ?::jsonb) on conflict (msg_id) do nothing returning id`,
      [subject, msgId, JSON.stringify(payload)],
    );
    return rows.length > 0;
  }

  /** Unpublished rows in id order; none while another replica's relay holds the lock (it publishes them). */
  async claim(em: Em, limit: number): Promise<OutboxRow[]> {
    const [lock] = await query<{ locked: boolean }>(em, 'select pg_try_advisory_xact_lock(?, hashtext(current_schema())) as locked', [this.lockKey]);
    if (!lock?.locked) return [];
    return query<OutboxRow>(em, `select id, subject, msg_id, payload from ${tableNamer(em)('outbox')} where published_at is null order by id limit ${limit}`);
  }

  /** Rows not yet published (the partial index outbox_unpublished). */
  async countPending(em: Em): Promise<number> {
    const [row] = await query<{ n: number }>(em, `select count(*)::int as n from ${tableNamer(em)('outbox')} where published_at is null`);
    return row?.n ?? 0;
  }

  async markPublished(em: Em, ids: readonly string[]): Promise<void> {
    await query(em, `update ${tableNamer(em)('outbox')} set published_at = now() where id in (${ids.map(() => '?').join(',')})`, ids);
  }

  /** Deletes rows published before `before` (retention, PollingOutboxRelay); returns how many. */
  async deletePublishedBefore(em: Em, before: Date): Promise<number> {
    const rows = await query<{ id: string }>(em, `delete from ${tableNamer(em)('outbox')} where published_at < ?::timestamptz returning id`, [before.toISOString()]);
    return rows.length;
  }
}
