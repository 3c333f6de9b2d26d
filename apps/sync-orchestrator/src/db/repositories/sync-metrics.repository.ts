/**
 * The orchestrator's figures for /metrics, read when Prometheus scrapes (sync-metrics.ts): syncs
 * by origin and status, and the units of open syncs by state. Both are one aggregate each over the
 * sync schema: the sync count scans `sync` (bounded by retention: 30 days of public syncs, 24 hours
 * of internal runs, decision 0030), the unit count only the units of open syncs, through the
 * primary key of each open sync's units.
 * Unit states (derived, migrations 0002 and 0009): `receipted`; `awaiting_receipts` (final batch
 * published, its receipts still due under the current token); `leased` (not leasable before its
 * lease_expires_at: held by a collector, or put back paced after a 429 or a full bus — the rows do
 * not tell those apart, the provider metrics show the 429s); `queued` (leasable now).
 */
import { query, tableNamer, type Em } from '@switchyard/persistence';

export interface SyncCountRow {
  origin: string;
  status: string;
  count: number;
}

export interface UnitCountRow {
  state: string;
  count: number;
}

export class SyncMetricsRepository {
  syncCounts(em: Em): Promise<SyncCountRow[]> {
    return query<SyncCountRow>(em, `select origin, status, count(*)::int as count from ${tableNamer(em)('sync')} group by origin, status`);
  }

  openUnitCounts(em: Em): Promise<UnitCountRow[]> {
    const t = tableNamer(em);
    return query<UnitCountRow>(
      em,
      `select case when u.state = 'receipted' then 'receipted'
                   when u.awaiting_token = u.fencing_token and u.awaiting_receipts_until > now() then 'awaiting_receipts'
                   when u.lease_expires_at > now() then 'leased'
                   else 'queued' end as state,
              count(*)::int as count
         from ${t('sync')} s join ${t('sync_unit')} u on u.sync_id = s.id
        where s.status in ('requested', 'in_progress')
        group by 1`,
    );
  }
}
