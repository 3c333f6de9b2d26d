/**
 * The batch ledger, the provider cursors and the per-connection publication marks of the ingest
 * pipeline (tables `ingest_batch`, `provider_cursor`, `connection_publication`).
 *
 * Invariants:
 * - `claim` inserts the batch id FIRST in the batch's transaction: a second delivery of the same
 *   batch (redelivery, a second process, a republish) blocks on the primary key until the first
 *   commits, then finds the row and gets the stored receipt — one commit per batch, one receipt
 *   content per batch, even with two consumers racing;
 * - a provider cursor only moves forward: a batch fetched earlier than the stored cursor's batch
 *   never overwrites it; a null cursor leaves it alone;
 * - `connection_publication.publication` counts committed batches per connection and kind, and
 *   `published_at` is the commit time stored reads report as publishedAt.
 * Shared by directory, telemetry-ingest and fault-feed: each keeps these tables in its own schema
 * (each context's own migration 0002 creates them, its DDL written out there).
 */
import type { IngestKind, ReceiptV1 } from '@switchyard/messaging';
import { query, tableNamer, type Em } from '@switchyard/persistence';

export interface LedgerBatch {
  batchId: string;
  connectionId: string;
  kind: IngestKind;
  syncId: string | null;
  unitId: string | null;
  fetchedAt: string;
}

export class IngestLedgerRepository {
  /** Returns undefined when this transaction owns the batch now, or the stored outcome of an earlier commit. */
  async claim(em: Em, batch: LedgerBatch): Promise<{ receipt: ReceiptV1 | null } | undefined> {
    const t = tableNamer(em);
    const inserted = await query<{ batch_id: string }>(
      em,
      `insert into ${t('ingest_batch')} (batch_id, connection_id, kind, sync_id, unit_id, fetched_at, status)
       values (?, ?::uuid, ?, ?, ?, ?::timestamptz, 'pending') on conflict (batch_id) do nothing returning batch_id`,
      [batch.batchId, batch.connectionId, batch.kind, batch.syncId, batch.unitId, batch.fetchedAt],
    );
    if (inserted.length > 0) return undefined;
    const [stored] = await query<{ receipt: ReceiptV1 | null }>(em, `select receipt from ${t('ingest_batch')} where batch_id = ?`, [batch.batchId]);
    return { receipt: stored?.receipt ?? null };
  }

  async complete(em: Em, batchId: string, outcome: { status: 'committed' | 'rejected'; records: number; committedAt: string; receipt: ReceiptV1 | null }) {
    const t = tableNamer(em);
    await query(
      em,
      `update ${t('ingest_batch')} set status = ?, records = ?, committed_at = ?::timestamptz, receipt = ?::jsonb where batch_id = ?`,
      [outcome.status, outcome.records, outcome.committedAt, outcome.receipt ? JSON.stringify(outcome.receipt) : null, batchId],
    );
  }

  async saveCursor(em: Em, connectionId: string, kind: IngestKind, cursor: string, fetchedAt: string, batchId: string) {
    const t = tableNamer(em);
    await query(
      em,
      `insert into ${t('provider_cursor')} as c (connection_id, kind, cursor, fetched_at, batch_id, updated_at)
       values (?::uuid, ?, ?, ?::timestamptz, ?, now())
       on conflict (connection_id, kind) do update set cursor = excluded.cursor, fetched_at = excluded.fetched_at, batch_id = excluded.batch_id, updated_at = now()
       where excluded.fetched_at >= c.fetched_at`,
      [connectionId, kind, cursor, fetchedAt, batchId],
    );
  }

  async cursor(em: Em, connectionId: string, kind: IngestKind): Promise<string | undefined> {
    const t = tableNamer(em);
    const [row] = await query<{ cursor: string }>(em, `select cursor from ${t('provider_cursor')} where connection_id = ?::uuid and kind = ?`, [connectionId, kind]);
    return row?.cursor;
  }

  /** Marks a committed batch: publication + 1, publishedAt = now, last fetch, and the last final page. */
  async publish(em: Em, connectionId: string, kind: IngestKind, fetchedAt: string, final: boolean) {
    const t = tableNamer(em);
    await query(
      em,
      `insert into ${t('connection_publication')} as p (connection_id, kind, publication, published_at, last_fetched_at, last_final_at)
       values (?::uuid, ?, 1, now(), ?::timestamptz, case when ? then ?::timestamptz end)
       on conflict (connection_id, kind) do update set publication = p.publication + 1, published_at = now(),
         last_fetched_at = greatest(p.last_fetched_at, excluded.last_fetched_at),
         last_final_at = greatest(p.last_final_at, excluded.last_final_at)`,
      [connectionId, kind, fetchedAt, final, fetchedAt],
    );
  }

  /** Deletes up to `limit` committed or rejected batches committed before `cutoff` (retention); returns how many. */
  async prune(em: Em, cutoff: Date, limit: number): Promise<number> {
    const t = tableNamer(em)('ingest_batch');
    const rows = await query<{ batch_id: string }>(
      em,
      `delete from ${t} where batch_id in (select batch_id from ${t} where committed_at < ?::timestamptz and status <> 'pending' limit ${Number(limit)} for update skip locked) returning batch_id`,
      [cutoff.toISOString()],
    );
    return rows.length;
  }
}

