/**
 * Transactional outbox: a configuration change and the event announcing it are written in one
 * transaction; the relay (services/outbox-relay.service.ts) publishes rows in id order with a
 * stable msgId and marks them published. A crash between publish and mark republishes the same
 * msgId, which JetStream's duplicate window (and the consumers' revision check) absorbs.
 */
import { SchemaMigration } from '@switchyard/persistence';

export class Migration0002Outbox extends SchemaMigration {
  override up(): void {
    const s = this.schema;
    this.addSql(`
create table ${s}.outbox (
  id bigserial primary key,
  subject text not null,
  msg_id text not null unique,
  payload jsonb not null,
  created_at timestamptz not null default now(),
  published_at timestamptz
);
create index outbox_unpublished on ${s}.outbox (id) where published_at is null;
`);
  }
}
