/**
 * The two inputs of a dataset's status, read in one round trip: the ingest ledger's publication
 * mark of the (connection, dataset) — written by the ingest pipeline on every committed batch — and
 * the directory's projection of connection-health events (`connection_health`, migration 0003).
 * `applyHealth` is the projection's only writer: each timestamp moves only forward (greatest() and a
 * guarded error code), so a redelivered or reordered observation never rolls health back.
 */
import type { ConnectionHealthV1, DirectoryDataset } from '@switchyard/messaging';
import type { Em } from '@switchyard/persistence';
import { isoSql, query, tableNamer } from '@switchyard/service-kit';

export interface DatasetStatusRow {
  fetched_at: string | null;
  captured_at: string | null;
  published_at: string | null;
  /** The newest core-scope observation is a failure. */
  failing: boolean;
  error_code: string | null;
}

export class DatasetStatusRepository {
  async read(em: Em, connectionId: string, dataset: DirectoryDataset): Promise<DatasetStatusRow> {
    const t = tableNamer(em);
    const [row] = await query<DatasetStatusRow>(
      em,
      `select ${isoSql('p.last_fetched_at')} as fetched_at, ${isoSql('p.last_final_at')} as captured_at, ${isoSql('p.published_at')} as published_at,
              coalesce(h.last_failure_at > h.last_success_at or (h.last_failure_at is not null and h.last_success_at is null), false) as failing,
              h.last_error_code as error_code
         from (select 1) as one
         left join ${t('connection_publication')} p on p.connection_id = ?::uuid and p.kind = ?
         left join ${t('connection_health')} h on h.connection_id = ?::uuid and h.scope = 'core'`,
      [connectionId, dataset, connectionId],
    );
    if (!row) throw new Error('dataset status query returned no row');
    return row;
  }

  /** Applies one observation; true when it changed something. */
  async applyHealth(em: Em, event: ConnectionHealthV1): Promise<boolean> {
    const success = event.outcome === 'success' ? event.observedAt : null;
    const failure = event.outcome === 'failure' ? event.observedAt : null;
    const rows = await query<{ connection_id: string }>(
      em,
      `insert into ${tableNamer(em)('connection_health')} as h (connection_id, scope, last_success_at, last_failure_at, last_error_code)
       values (?::uuid, ?, ?::timestamptz, ?::timestamptz, ?)
       on conflict (connection_id, scope) do update set
         last_success_at = greatest(h.last_success_at, excluded.last_success_at),
         last_failure_at = greatest(h.last_failure_at, excluded.last_failure_at),
         last_error_code = case when excluded.last_failure_at > coalesce(h.last_failure_at, '-infinity') then excluded.last_error_code else h.last_error_code end,
         updated_at = now()
       where excluded.last_success_at > coalesce(h.last_success_at, '-infinity') or excluded.last_failure_at > coalesce(h.last_failure_at, '-infinity')
       returning connection_id`,
      [event.connectionId, event.scope, success, failure, event.errorCode],
    );
    return rows.length > 0;
  }
}
