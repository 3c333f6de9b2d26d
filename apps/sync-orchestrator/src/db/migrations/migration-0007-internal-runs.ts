/**
 * Internal runs (scheduled collection, issue 4): syncs the orchestrator creates for itself, with
 * the internal purposes (drivers, groups, telemetryLatest, telemetryHistory, faults) the public API
 * never accepts.
 *
 * - `sync.origin`: `api` for syncs created through `POST /v1/syncs` (every existing row), else the
 *   internal origin that created the run (e.g. `scheduled`). Public reads (list, get) keep to
 *   `origin = 'api'`, so internal runs are never visible through `GET /v1/syncs`;
 * - `sync.application_id` is null exactly for internal runs (no application asked for them), which
 *   the check `sync_origin_application_check` keeps;
 * - `sync_unit.vehicle_source_id` is null for connection-level units (drivers, groups: one unit per
 *   run, not per vehicle);
 * - `sync_connection_origin_idx` serves "the connection's newest sync of this origin" (the public
 *   default startFrom ignores internal runs, which come every few minutes).
 * Additive: no existing row changes meaning.
 */
import { SchemaMigration } from '@switchyard/persistence';

export class Migration0007InternalRuns extends SchemaMigration {
  override up(): void {
    const s = this.schema;
    this.addSql(`
alter table ${s}.sync add column origin text not null default 'api';
alter table ${s}.sync alter column application_id drop not null;
alter table ${s}.sync add constraint sync_origin_check check (origin ~ '^[a-z][a-z_]{0,31}$');
alter table ${s}.sync add constraint sync_origin_application_check check ((origin = 'api') = (application_id is not null));
create index sync_connection_origin_idx on ${s}.sync (connection_id, origin, requested_at);
alter table ${s}.sync_unit alter column vehicle_source_id drop not null;
`);
  }
}
