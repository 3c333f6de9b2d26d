/**
 * The batch ledger of units (`sync_unit_batch`, migration 0006): which ingest batches a unit's
 * collector published under its current fencing token, and which of them the owning context has
 * committed. It answers one question for the receipt consumer: is every batch of the unit's final
 * set committed? Only then may the unit be receipted (spec: completed only when every admitted unit
 * has a committed data receipt; a batch accepted into a stream is not completion).
 *
 * Fencing: `record` writes only while the token is the unit's current one, the unit is still
 * admitted and its sync still open (the unit and sync rows are held FOR SHARE, so a concurrent
 * re-lease, failure or cancellation waits for it; a page a collector fetched while its sync failed
 * or was cancelled is never published — found by fault-simulator.int-spec.ts: a job retrying the
 * provider's 503s outlived its failed run and stored the snapshot of a step the run never had); `commit` runs
 * under the unit row lock FOR UPDATE, so two receipts of one unit never both see the other's batch
 * as pending and leave the unit waiting forever.
 */
import { isoSql, query, tableNamer, type Em } from '@switchyard/persistence';

export interface UnitBatch {
  batchId: string;
  final: boolean;
}

export interface BatchLedgerState {
  /** A `final` batch is recorded under the token. */
  finalKnown: boolean;
  /** Recorded batches of the token whose receipt has not committed. */
  pending: number;
  /** The latest commit time among the token's batches (RFC 3339), when any committed. */
  lastCommittedAt: string | null;
}

export class UnitBatchRepository {
  /**
   * Records `batches` for the unit under `fencingToken` (idempotent: a republished batch keeps its
   * row and any committed receipt) and prunes rows of older tokens. False (nothing written) when the
   * token is not current, the unit is no longer admitted or its sync no longer open (failed,
   * cancelled): the caller must not publish then.
   */
  async record(em: Em, unitId: string, fencingToken: string, batches: readonly UnitBatch[]): Promise<boolean> {
    const t = tableNamer(em);
    const held = await query<{ id: string }>(
      em,
      `select u.id from ${t('sync_unit')} u join ${t('sync')} s on s.id = u.sync_id
        where u.id = ?::bigint and u.fencing_token = ?::bigint and u.state = 'admitted' and s.status in ('requested', 'in_progress')
        for share`,
      [unitId, fencingToken],
    );
    if (held.length === 0) return false;
    await query(em, `delete from ${t('sync_unit_batch')} where unit_id = ?::bigint and fencing_token < ?::bigint`, [unitId, fencingToken]);
    if (batches.length === 0) return true;
    await query(
      em,
      `insert into ${t('sync_unit_batch')} (unit_id, fencing_token, batch_id, final)
       select ?::bigint, ?::bigint, b.batch_id, b.final from json_to_recordset(?::json) as b(batch_id text, final boolean)
       on conflict (unit_id, fencing_token, batch_id) do nothing`,
      [unitId, fencingToken, JSON.stringify(batches.map((b) => ({ batch_id: b.batchId, final: b.final })))],
    );
    return true;
  }

  /** Locks the unit row (FOR UPDATE) and returns its current token and state. */
  async lockUnit(em: Em, unitId: string): Promise<{ fencingToken: string; state: 'admitted' | 'receipted' } | undefined> {
    const [row] = await query<{ fencing_token: string; state: 'admitted' | 'receipted' }>(
      em,
      `select fencing_token::text as fencing_token, state from ${tableNamer(em)('sync_unit')} where id = ?::bigint for update`,
      [unitId],
    );
    return row && { fencingToken: row.fencing_token, state: row.state };
  }

  /**
   * Marks the batch's receipt committed (the first commit time is kept). 'committed' on the first
   * receipt, 'duplicate' when it was already committed, 'unknown_batch' when the batch was never
   * recorded under this token (nothing is stored: it cannot complete anything).
   */
  async commit(em: Em, unitId: string, fencingToken: string, batchId: string, committedAt: string): Promise<'committed' | 'duplicate' | 'unknown_batch'> {
    const rows = await query<{ was_committed: boolean }>(
      em,
      `update ${tableNamer(em)('sync_unit_batch')} b set committed_at = coalesce(b.committed_at, ?::timestamptz)
         from (select committed_at is not null as was_committed from ${tableNamer(em)('sync_unit_batch')}
                where unit_id = ?::bigint and fencing_token = ?::bigint and batch_id = ?) prev
        where b.unit_id = ?::bigint and b.fencing_token = ?::bigint and b.batch_id = ?
       returning prev.was_committed`,
      [committedAt, unitId, fencingToken, batchId, unitId, fencingToken, batchId],
    );
    const row = rows[0];
    if (!row) return 'unknown_batch';
    return row.was_committed ? 'duplicate' : 'committed';
  }

  async state(em: Em, unitId: string, fencingToken: string): Promise<BatchLedgerState> {
    const [row] = await query<{ final_known: boolean | null; pending: number; last_committed_at: string | null }>(
      em,
      `select bool_or(final) as final_known, (count(*) filter (where committed_at is null))::int as pending, ${isoSql('max(committed_at)')} as last_committed_at
         from ${tableNamer(em)('sync_unit_batch')} where unit_id = ?::bigint and fencing_token = ?::bigint`,
      [unitId, fencingToken],
    );
    return { finalKnown: row?.final_known === true, pending: row?.pending ?? 0, lastCommittedAt: row?.last_committed_at ?? null };
  }
}
