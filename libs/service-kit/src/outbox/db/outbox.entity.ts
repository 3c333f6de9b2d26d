/**
 * A domain event waiting to be published: the `outbox` table as the ORM sees it, shared by every
 * context that keeps one (the gateway's migration 0002, the sync-orchestrator's 0015; the SQL is
 * outbox-table.repository.ts).
 */
import { defineEntity, p } from '@mikro-orm/postgresql';

export const OutboxMessage = defineEntity({
  name: 'OutboxMessage',
  tableName: 'outbox',
  properties: {
    id: p.bigint().primary().autoincrement(),
    subject: p.text(),
    msgId: p.text().unique('outbox_msg_id_key'),
    payload: p.json(),
    createdAt: p.datetime().defaultRaw('now()').onCreate(() => new Date()),
    publishedAt: p.datetime().nullable(),
  },
  indexes: [{ name: 'outbox_unpublished', properties: ['id'], where: 'published_at is null' }],
});
