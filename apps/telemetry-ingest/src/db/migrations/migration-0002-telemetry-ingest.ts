/**
 * The telemetry store: `observations` (history, range-partitioned by month on observed_at) and
 * `latest_readings` (one row per connection × vehicle × metric), plus the ingest ledger, provider
 * cursors and publication marks.
 *
 * - observations' primary key (connection_id, vehicle_id, metric, observed_at, source) makes a
 *   re-ingested reading a no-op (ON CONFLICT DO NOTHING) and serves "one vehicle, one metric, one
 *   window" reads by index (~3 ms over 1M rows, notes/performance.md). Monthly partitions are
 *   created on demand by the consumer (ObservationPartitions) for the months a batch touches, so
 *   retention is a DROP of old partitions, never a DELETE.
 * - latest_readings is moved forward only — by a later observed_at, ties broken by source — so
 *   latest reads are a primary-key lookup (~0.4 ms vs ~1.56 s for DISTINCT ON over history).
 * - `vehicle_id` is the stable public `vcl_` id minted as directory mints it; `value` keeps the
 *   normalized value object, `value_num` its number (NULL for location and engine state) for
 *   report windows.
 */
import { SchemaMigration } from '@switchyard/persistence';
import { ingestLedgerDdl } from '@switchyard/service-kit';

export class Migration0002TelemetryIngest extends SchemaMigration {
  override up(): void {
    const s = this.schema;
    this.addSql(`
create table ${s}.observations (
  connection_id uuid not null,
  vehicle_id text not null,
  metric text not null,
  observed_at timestamptz not null,
  source text not null,
  provider text not null,
  vehicle_source_id text not null,
  value jsonb not null,
  value_num double precision null,
  units jsonb null,
  fetched_at timestamptz not null,
  batch_id text not null,
  primary key (connection_id, vehicle_id, metric, observed_at, source)
) partition by range (observed_at);

create table ${s}.latest_readings (
  connection_id uuid not null,
  vehicle_id text not null,
  metric text not null,
  observed_at timestamptz not null,
  source text not null,
  provider text not null,
  vehicle_source_id text not null,
  value jsonb not null,
  value_num double precision null,
  units jsonb null,
  fetched_at timestamptz not null,
  batch_id text not null,
  updated_at timestamptz not null,
  primary key (connection_id, vehicle_id, metric)
);
${ingestLedgerDdl(s)}
`);
  }
}
