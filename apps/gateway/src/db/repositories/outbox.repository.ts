/**
 * The gateway outbox's SQL for its relay (services/outbox-relay.service.ts).
 * Invariant: both statements run on the relay's transaction, so the advisory lock taken by
 * `claim` holds until the rows it returned are marked published in the same commit.
 */
import { query, tableNamer, type Em } from '@switchyard/persistence';

const LOCK_KEY = 0x53574f42; // "SWOB"

export interface OutboxRow {
  id: string;
  subject: string;
  msg_id: string;
  payload: unknown;
}

export class OutboxRepository {
  /** Unpublished rows in id order; none while another replica's relay holds the lock (it publishes them). */
  async claim(em: Em, limit: number): Promise<OutboxRow[]> {
    const [lock] = await query<{ locked: boolean }>(em, 'select pg_try_advisory_xact_lock(?, hashtext(current_schema())) as locked', [LOCK_KEY]);
    if (!lock?.locked) return [];
    return query<OutboxRow>(em, `select id, subject, msg_id, payload from ${tableNamer(em)('outbox')} where published_at is null order by id limit ${limit}`);
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
