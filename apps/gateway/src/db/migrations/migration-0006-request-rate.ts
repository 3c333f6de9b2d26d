/**
 * The public API's request rate limit (issue 14; docs/reliability.md): one token bucket per
 * consumer key (`key:<id>`) and per application (`app:<id>`), shared by every gateway process,
 * taken with one conditional upsert (request-rate.repository.ts). Additive: one table.
 */
import { SchemaMigration } from '@switchyard/persistence';

export class Migration0006RequestRate extends SchemaMigration {
  override up(): void {
    const s = this.schema;
    this.addSql(`
create table ${s}.request_rate_bucket (
  subject text primary key,
  tokens double precision not null,
  refilled_at timestamptz not null,
  last_allowed boolean not null
);`);
  }
}
