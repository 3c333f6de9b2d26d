/** A domain event waiting to be published (see migration 0002). */
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
