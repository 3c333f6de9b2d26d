/**
 * Usage rollups (issue 12; docs/metrics.md "Rollups"; formulas libs/domain/src/usage/rollups.ts),
 * kept current by the ingest transaction of every observations batch (UsageRollupRepository):
 * - `usage_slot`: per vehicle, usage metric and series (the provider source of a counter, `*` for
 *   the merged engine states) and 15-minute UTC slot: the pro-rata amount and observed time of its
 *   valid intervals, its observations and their sources. Rows exist only for slots with observed
 *   time or an observation;
 * - `usage_excluded_interval`: the excluded intervals (backwards or implausible), kept whole;
 * - `usage_rollup_epoch`: when rollups started (this migration). Observations stored before it were
 *   never rolled up, so a report reaching before it reads raw observations.
 * A range's rows are rebuilt from the observations alone (delete, then insert), so a re-delivered
 * or late batch rebuilds the same rows.
 */
import { SchemaMigration } from '@switchyard/persistence';

export class Migration0004UsageRollups extends SchemaMigration {
  override up(): void {
    const s = this.schema;
    this.addSql(`
create table ${s}.usage_slot (
  connection_id uuid not null,
  vehicle_id text not null,
  metric text not null,
  series text not null,
  slot_start timestamptz not null,
  amount double precision not null,
  coverage_ms double precision not null,
  samples integer not null,
  sources jsonb not null,
  primary key (connection_id, vehicle_id, metric, series, slot_start)
);

create table ${s}.usage_excluded_interval (
  connection_id uuid not null,
  vehicle_id text not null,
  metric text not null,
  series text not null,
  start_at timestamptz not null,
  end_at timestamptz not null,
  reason text not null,
  primary key (connection_id, vehicle_id, metric, series, start_at)
);

create table ${s}.usage_rollup_epoch (
  id smallint primary key,
  started_at timestamptz not null
);
insert into ${s}.usage_rollup_epoch (id, started_at) values (1, now());
`);
  }
}
