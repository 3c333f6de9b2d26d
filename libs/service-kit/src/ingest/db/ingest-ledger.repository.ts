/**
 * The batch ledger, the provider cursors and the per-connection publication marks of the ingest
 * pipeline (tables `ingest_batch`, `provider_cursor`, `connection_publication`).
 *
 * Invariants:
 * - `claimAll` inserts the batch ids FIRST in the transaction: a second delivery of the same
 *   batch (redelivery, a second process, a republish) blocks on the primary key until the first
 *   commits, then finds the row and gets the stored receipt — one commit per batch, one receipt
 *   content per batch, even with two consumers racing; a group of batches is one statement;
 * - a provider cursor only moves forward: a batch fetched earlier than the stored cursor's batch
 *   never overwrites it; a null cursor leaves it alone;
 * - `connection_publication.publication` counts committed batches per connection and kind, and
 *   `published_at` is the commit time stored reads report as publishedAt;
 * - every statement takes a whole group (ingest-pipeline.ts commitGroup): a transaction's ledger
 *   work is two or three statements (claim, the stored receipts of repeats, finish) whatever the
 *   number of batches.
 * Shared by directory, telemetry-ingest and fault-feed: each keeps these tables in its own schema
 * (each context's own migration 0002 creates them, its DDL written out there).
 */
import type { IngestKind, ReceiptV1 } from '@switchyard/messaging';
import { query, tableNamer, type Em } from '@switchyard/persistence';

const byCodeUnit = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

export interface LedgerBatch {
  batchId: string;
  connectionId: string;
  kind: IngestKind;
  syncId: string | null;
  unitId: string | null;
  fetchedAt: string;
}

export class IngestLedgerRepository {
  /**
   * Claims every batch of a group (distinct ids, inserted in id order so two groups sharing a
   * batch lock alike): returns the stored outcome of each batch an earlier transaction committed;
   * the others belong to this transaction now.
   */
  async claimAll(em: Em, batches: readonly LedgerBatch[]): Promise<Map<string, { receipt: ReceiptV1 | null }>> {
    const t = tableNamer(em);
    const rows = [...batches]
      .sort((a, b) => byCodeUnit(a.batchId, b.batchId))
      .map((b) => ({ batch_id: b.batchId, connection_id: b.connectionId, kind: b.kind, sync_id: b.syncId, unit_id: b.unitId, fetched_at: b.fetchedAt }));
    const inserted = await query<{ batch_id: string }>(
      em,
      `insert into ${t('ingest_batch')} (batch_id, connection_id, kind, sync_id, unit_id, fetched_at, status)
       select x.batch_id, x.connection_id, x.kind, x.sync_id, x.unit_id, x.fetched_at, 'pending'
       from json_to_recordset(?::json) as x(batch_id text, connection_id uuid, kind text, sync_id text, unit_id text, fetched_at timestamptz) order by x.batch_id
       on conflict (batch_id) do nothing returning batch_id`,
      [JSON.stringify(rows)],
    );
    const ours = new Set(inserted.map((r) => r.batch_id));
    const earlier = rows.filter((r) => !ours.has(r.batch_id)).map((r) => r.batch_id);
    if (earlier.length === 0) return new Map();
    const stored = await query<{ batch_id: string; receipt: ReceiptV1 | null }>(
      em,
      `select batch_id, receipt from ${t('ingest_batch')} where batch_id in (select value from json_array_elements_text(?::json))`,
      [JSON.stringify(earlier)],
    );
    return new Map(stored.map((r) => [r.batch_id, { receipt: r.receipt }]));
  }

  /**
   * Closes a group's transaction, one statement: stores the outcome of each batch it claimed, and
   * marks the committed ones — per connection and kind the provider cursor of the newest fetch
   * (forward only; a null cursor leaves it alone) and the publication mark (publication + the
   * group's batches, publishedAt = now, the newest fetch, the newest final page). Cursor and mark
   * rows go in (connection, kind) order, so concurrent groups lock them alike; they are the rows
   * every transaction of a connection updates, so this is the last statement before the commit.
   */
  async finish(
    em: Em,
    outcomes: readonly { batchId: string; status: 'committed' | 'rejected'; records: number; committedAt: string; receipt: ReceiptV1 | null }[],
    committed: readonly (LedgerBatch & { providerCursor: string | null; final: boolean })[],
  ): Promise<void> {
    if (outcomes.length === 0) return;
    const t = tableNamer(em);
    const cursors = new Map<string, { connection_id: string; kind: string; cursor: string; fetched_at: string; batch_id: string }>();
    const marks = new Map<string, { connection_id: string; kind: string; batches: number; last_fetched_at: string; last_final_at: string | null }>();
    const later = (a: string, b: string | null) => b === null || Date.parse(a) >= Date.parse(b);
    for (const b of committed) {
      const key = `${b.connectionId} ${b.kind}`;
      const held = cursors.get(key);
      // A later batch of the group with the same fetch time wins, as it would one transaction later.
      if (b.providerCursor !== null && (!held || later(b.fetchedAt, held.fetched_at))) cursors.set(key, { connection_id: b.connectionId, kind: b.kind, cursor: b.providerCursor, fetched_at: b.fetchedAt, batch_id: b.batchId });
      const mark = marks.get(key) ?? { connection_id: b.connectionId, kind: b.kind, batches: 0, last_fetched_at: b.fetchedAt, last_final_at: null };
      mark.batches += 1;
      if (later(b.fetchedAt, mark.last_fetched_at)) mark.last_fetched_at = b.fetchedAt;
      if (b.final && later(b.fetchedAt, mark.last_final_at)) mark.last_final_at = b.fetchedAt;
      marks.set(key, mark);
    }
    const ordered = <T extends { connection_id: string; kind: string }>(rows: Iterable<T>) => [...rows].sort((a, b) => byCodeUnit(a.connection_id, b.connection_id) || byCodeUnit(a.kind, b.kind));
    // Every data-modifying WITH runs to completion whether or not the main statement reads it.
    await query(
      em,
      `with outcomes as (
         update ${t('ingest_batch')} b set status = x.status, records = x.records, committed_at = x.committed_at, receipt = x.receipt
         from json_to_recordset(?::json) as x(batch_id text, status text, records integer, committed_at timestamptz, receipt jsonb) where b.batch_id = x.batch_id
         returning 1),
       cursors as (
         insert into ${t('provider_cursor')} as c (connection_id, kind, cursor, fetched_at, batch_id, updated_at)
         select x.connection_id, x.kind, x.cursor, x.fetched_at, x.batch_id, now()
         from json_to_recordset(?::json) as x(connection_id uuid, kind text, cursor text, fetched_at timestamptz, batch_id text) order by x.connection_id, x.kind
         on conflict (connection_id, kind) do update set cursor = excluded.cursor, fetched_at = excluded.fetched_at, batch_id = excluded.batch_id, updated_at = now()
         where excluded.fetched_at >= c.fetched_at
         returning 1)
       insert into ${t('connection_publication')} as p (connection_id, kind, publication, published_at, last_fetched_at, last_final_at)
       select x.connection_id, x.kind, x.batches, now(), x.last_fetched_at, x.last_final_at
       from json_to_recordset(?::json) as x(connection_id uuid, kind text, batches bigint, last_fetched_at timestamptz, last_final_at timestamptz)
       order by x.connection_id, x.kind
       on conflict (connection_id, kind) do update set publication = p.publication + excluded.publication, published_at = now(),
         last_fetched_at = greatest(p.last_fetched_at, excluded.last_fetched_at),
         last_final_at = greatest(p.last_final_at, excluded.last_final_at)`,
      [
        JSON.stringify(outcomes.map((o) => ({ batch_id: o.batchId, status: o.status, records: o.records, committed_at: o.committedAt, receipt: o.receipt }))),
        JSON.stringify(ordered(cursors.values())),
        JSON.stringify(ordered(marks.values())),
      ],
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

