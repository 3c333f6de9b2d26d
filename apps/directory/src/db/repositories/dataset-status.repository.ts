/**
 * The two inputs of a dataset's status, read in one round trip: the ingest ledger's publication
 * mark of the (connection, dataset) — written by the ingest pipeline on every committed batch — and
 * the directory's projection of connection-health events per (connection, dataset, scope)
 * (`dataset_health`, migration 0011). `applyHealth` is the projection's only writer: an
 * observation updates the rows of the datasets it names (every dataset when it names none: a
 * publisher from before `datasets`), and each timestamp moves only forward (greatest() and a
 * guarded error code), so a redelivered or reordered observation never rolls health back.
 */
import { healthDatasetsOf, type ConnectionHealthV1, type DirectoryDataset } from '@switchyard/messaging';
import { isoSql, query, tableNamer, type Em } from '@switchyard/persistence';
import { arrayLiteral } from './trips-read.repository.js';

export interface DatasetStatusRow {
  fetched_at: string | null;
  captured_at: string | null;
  published_at: string | null;
  /** The newest core-scope observation of the dataset is a failure. */
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
         left join ${t('dataset_health')} h on h.connection_id = ?::uuid and h.dataset = ? and h.scope = 'core'`,
      [connectionId, dataset, connectionId, dataset],
    );
    if (!row) throw new Error('dataset status query returned no row');
    return row;
  }

  /** Applies one observation to each dataset it is about; true when it changed something. */
  async applyHealth(em: Em, event: ConnectionHealthV1): Promise<boolean> {
    const datasets = healthDatasetsOf(event);
    if (datasets.length === 0) return false;
    const success = event.outcome === 'success' ? event.observedAt : null;
    const failure = event.outcome === 'failure' ? event.observedAt : null;
    const rows = await query<{ connection_id: string }>(
      em,
      `insert into ${tableNamer(em)('dataset_health')} as h (connection_id, dataset, scope, last_success_at, last_failure_at, last_error_code)
       select ?::uuid, d.dataset, ?::text, ?::timestamptz, ?::timestamptz, ?::text from unnest(?::text[]) as d(dataset)
       on conflict (connection_id, dataset, scope) do update set
         last_success_at = greatest(h.last_success_at, excluded.last_success_at),
         last_failure_at = greatest(h.last_failure_at, excluded.last_failure_at),
         last_error_code = case when excluded.last_failure_at > coalesce(h.last_failure_at, '-infinity') then excluded.last_error_code else h.last_error_code end,
         updated_at = now()
       where excluded.last_success_at > coalesce(h.last_success_at, '-infinity') or excluded.last_failure_at > coalesce(h.last_failure_at, '-infinity')
       returning connection_id`,
      [event.connectionId, event.scope, success, failure, event.errorCode, arrayLiteral(datasets)],
    );
    return rows.length > 0;
  }
}
