/** A domain event waiting to be published (see migration 0002). */
import { defineEntity, p } from '@mikro-orm/postgresql';

export const OutboxMessage = defineEntity({
  name: 'OutboxMessage',
  tableName: 'outbox',
  properties: {
    id: p.bigint().primary().autoincrement(),
    subject: p.string(),
    msgId: p.string().unique(),
    payload: p.json(),
    createdAt: p.datetime().onCreate(() => new Date()),
    publishedAt: p.datetime().nullable(),
  },
});
