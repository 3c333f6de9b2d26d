/**
 * SQL of the operator console's run list (`sync.operator.runs`, schemas/operator-runs.v1.ts in
 * libs/messaging): a connection's newest runs of every origin, each with its units counted by state
 * and its first units with a recorded error — one statement, served by `sync_connection_latest_idx`
 * (connection, requested_at) and the unit's unique (sync_id, seq) index. Read-only; never locks.
 * A unit is counted once, in the schema's order: receipted, awaiting receipts (final batch published
 * under the current token, inside its wait), retrying (an error recorded for its current attempt —
 * a unit leased again after an error stays here until it is receipted), collecting (leased), queued.
 */
import { isoSql, query, tableNamer, type Em } from '@switchyard/persistence';
import { OPERATOR_RUN_ERRORS, type OperatorRunV1 } from '@switchyard/messaging';
import type { SyncStatus } from '../../domain/sync-state.js';

export interface OperatorRunRow {
  id: string;
  origin: string;
  status: SyncStatus;
  requested_at: string;
  start_from: string;
  interval_end: string;
  completed_at: string | null;
  failure_reason: string | null;
  attempts: number;
  purposes: string[];
  admitted_units: number;
  receipted_units: number;
  units: OperatorRunV1['units'];
  errors: OperatorRunV1['errors'];
}

export async function operatorRuns(em: Em, connectionId: string, limit: number): Promise<OperatorRunRow[]> {
  const t = tableNamer(em);
  const awaiting = `u.awaiting_token is not distinct from u.fencing_token and u.awaiting_receipts_until > now()`;
  return query<OperatorRunRow>(
    em,
    `select s.id, s.origin, s.status, ${isoSql('s.requested_at')} as requested_at, ${isoSql('s.start_from')} as start_from, ${isoSql('s.interval_end')} as interval_end,
            ${isoSql('s.completed_at')} as completed_at, s.failure_reason, s.attempts, s.purposes, s.admitted_units, s.receipted_units,
            (select json_build_object(
                      'receipted', count(*) filter (where u.state = 'receipted'),
                      'awaitingReceipts', count(*) filter (where u.state = 'admitted' and ${awaiting}),
                      'retrying', count(*) filter (where u.state = 'admitted' and not (${awaiting}) and u.last_error_code is not null),
                      'collecting', count(*) filter (where u.state = 'admitted' and not (${awaiting}) and u.last_error_code is null and u.lease_expires_at > now()),
                      'queued', count(*) filter (where u.state = 'admitted' and not (${awaiting}) and u.last_error_code is null and (u.lease_expires_at is null or u.lease_expires_at <= now())))
               from ${t('sync_unit')} u where u.sync_id = s.id) as units,
            (select coalesce(json_agg(json_build_object('seq', e.seq, 'purpose', e.purpose, 'vehicleSourceId', e.vehicle_source_id, 'code', e.last_error_code, 'errorAttempts', e.error_attempts) order by e.seq), '[]'::json)
               from (select seq, purpose, vehicle_source_id, last_error_code, error_attempts from ${t('sync_unit')} u
                      where u.sync_id = s.id and u.state = 'admitted' and u.last_error_code is not null order by seq limit ${OPERATOR_RUN_ERRORS}) e) as errors
       from ${t('sync')} s
      where s.connection_id = ?::uuid
      order by s.requested_at desc, s.id desc
      limit ?`,
    [connectionId, limit],
  );
}
