/**
 * SQL of scheduled collection (migrations 0008, 0010): the per-connection schedule rows, the claim
 * of one due row with the runs (parts) of its last window, and the open scheduled runs of
 * connections whose collection stopped.
 *
 * Invariants:
 * - `claimDue` locks the row `FOR UPDATE SKIP LOCKED`: a second scheduler process skips it instead of
 *   waiting, and one that reads it after the first committed sees the moved `next_due_at` (PostgreSQL
 *   rechecks the WHERE on the newest row version), so one window gets one decision;
 * - the claim returns the database's clock (`clock_timestamp()`), the one clock every scheduler
 *   process shares: window arithmetic never depends on a host's clock;
 * - lock order: schedule row, then the new sync rows; the sweep locks only sync rows (like receipts,
 *   sync before units), so the scheduler never waits on a collector in a cycle;
 * - the last window's runs are `last_sync_ids` when it holds `last_sync_id` (its first part, written
 *   together), else `[last_sync_id]` (a row of a process without migration 0010's column in use).
 */
import type { ConnectionConfigV1 } from '@switchyard/messaging';
import { isoSql, query, tableNamer, type Em } from '@switchyard/persistence';
import { SCHEDULED_ORIGIN } from '../../domain/collection-scope.js';
import type { SyncStatus } from '../../domain/sync-state.js';

export interface ClaimedSchedule {
  connectionId: string;
  /** The database's clock at the claim. */
  now: Date;
  dueAt: Date;
  coveredUntil: Date | null;
  config: ConnectionConfigV1;
  /** The last window's runs (parts, in plan order) and each one's status. */
  previous?: { syncIds: string[]; statuses: SyncStatus[]; startFrom: Date; intervalEnd: Date };
}

export interface ScheduleOutcome {
  nextDueAt: Date;
  decidedAt: Date;
  /** `created` or the skip reason. */
  decision: string;
  /** Set when the window's runs were created: they become the schedule's previous window, covered up to its end. */
  runs?: { syncIds: readonly string[]; intervalEnd: Date };
}

export interface StoppedRun {
  syncId: string;
  connectionId: string;
  config: Pick<ConnectionConfigV1, 'status' | 'unifiedCollection'>;
}

const date = (value: string) => new Date(value);

export class ScheduleRepository {
  /** A schedule row, due now, for every projected connection that has none yet; returns how many were added. */
  async ensureSchedules(em: Em): Promise<number> {
    const t = tableNamer(em);
    const rows = await query<{ connection_id: string }>(
      em,
      `insert into ${t('sync_schedule')} (connection_id, next_due_at)
       select c.connection_id, now() from ${t('connection_config')} c
        where not exists (select 1 from ${t('sync_schedule')} s where s.connection_id = c.connection_id)
       on conflict (connection_id) do nothing
       returning connection_id`,
    );
    return rows.length;
  }

  /** Claims one due schedule (row-locked until commit), with its connection config and its last window's runs. */
  async claimDue(em: Em): Promise<ClaimedSchedule | undefined> {
    const t = tableNamer(em);
    const [row] = await query<{
      connection_id: string;
      now: string;
      next_due_at: string;
      covered_until: string | null;
      config: ConnectionConfigV1;
      previous_ids: string[] | null;
      previous_statuses: SyncStatus[] | null;
      previous_start: string | null;
      previous_end: string | null;
    }>(
      em,
      `select s.connection_id, ${isoSql('clock_timestamp()')} as now, ${isoSql('s.next_due_at')} as next_due_at, ${isoSql('s.covered_until')} as covered_until,
              c.config, p.ids as previous_ids, p.statuses as previous_statuses, ${isoSql('p.start_from')} as previous_start, ${isoSql('p.interval_end')} as previous_end
         from ${t('sync_schedule')} s
         join ${t('connection_config')} c on c.connection_id = s.connection_id
         left join lateral (
           select array_agg(r.id order by r.id) as ids, array_agg(r.status::text order by r.id) as statuses, min(r.start_from) as start_from, max(r.interval_end) as interval_end
             from ${t('sync')} r
            where r.id = any(case when s.last_sync_id = any(s.last_sync_ids) then s.last_sync_ids else array[s.last_sync_id] end)
         ) p on true
        where s.next_due_at <= clock_timestamp()
        order by s.next_due_at
        limit 1
        for update of s skip locked`,
    );
    if (!row) return undefined;
    return {
      connectionId: row.connection_id,
      now: date(row.now),
      dueAt: date(row.next_due_at),
      coveredUntil: row.covered_until ? date(row.covered_until) : null,
      config: row.config,
      ...(row.previous_ids && row.previous_statuses && row.previous_start && row.previous_end
        ? { previous: { syncIds: row.previous_ids, statuses: row.previous_statuses, startFrom: date(row.previous_start), intervalEnd: date(row.previous_end) } }
        : {}),
    };
  }

  /** Stores the decision on the claimed row (same transaction as the claim). */
  async recordOutcome(em: Em, connectionId: string, outcome: ScheduleOutcome): Promise<void> {
    const runs = outcome.runs;
    if (runs && runs.syncIds.length === 0) throw new Error('recordOutcome: a created window has at least one run');
    await query(
      em,
      `update ${tableNamer(em)('sync_schedule')}
          set next_due_at = ?::timestamptz, last_decision = ?, last_decided_at = ?::timestamptz,
              covered_until = coalesce(?::timestamptz, covered_until), last_sync_id = coalesce(?, last_sync_id),
              last_sync_ids = coalesce((select array_agg(e.id order by e.n) from jsonb_array_elements_text(?::jsonb) with ordinality as e(id, n)), last_sync_ids)
        where connection_id = ?::uuid`,
      [
        outcome.nextDueAt.toISOString(),
        outcome.decision,
        outcome.decidedAt.toISOString(),
        runs?.intervalEnd.toISOString() ?? null,
        runs?.syncIds[0] ?? null,
        runs ? JSON.stringify(runs.syncIds) : null,
        connectionId,
      ],
    );
  }

  /**
   * Open scheduled runs whose connection is no longer active with unified collection on. The origin
   * is a literal in the SQL (a constant, never input) so the planner matches the partial index
   * `sync_scheduled_open_idx` of migration 0008.
   */
  async openRunsOfStoppedConnections(em: Em): Promise<StoppedRun[]> {
    const t = tableNamer(em);
    const rows = await query<{ id: string; connection_id: string; status: ConnectionConfigV1['status']; unified: boolean }>(
      em,
      `select s.id, s.connection_id, c.config->>'status' as status, (c.config->>'unifiedCollection')::boolean as unified
         from ${t('sync')} s join ${t('connection_config')} c on c.connection_id = s.connection_id
        where s.origin = '${SCHEDULED_ORIGIN}' and s.status in ('requested', 'in_progress')
          and not (c.config->>'status' = 'active' and (c.config->>'unifiedCollection')::boolean)`,
    );
    return rows.map((r) => ({ syncId: r.id, connectionId: r.connection_id, config: { status: r.status, unifiedCollection: r.unified } }));
  }
}
