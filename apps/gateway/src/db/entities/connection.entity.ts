/**
 * A customer's authorized link to one provider account. Provider credentials are sealed
 * (services/secret-box.ts); `config` is the ConnectionConfig of libs/domain, published to the
 * contexts on every change with a monotonic `configRevision`.
 */
import { defineEntity, p } from '@mikro-orm/postgresql';

export const Connection = defineEntity({
  name: 'Connection',
  tableName: 'connection',
  properties: {
    id: p.uuid().primary(),
    customerId: p.string(),
    provider: p.string(),
    environment: p.string(),
    providerCredentials: p.text().nullable(),
    config: p.json(),
    configRevision: p.integer().default(1),
    /** Bumped by every disconnect; cursors are bound to it (migration 0003). */
    accessEpoch: p.integer().default(1),
    lastSuccessAt: p.datetime().nullable(),
    lastErrorCode: p.string().nullable(),
    extendedLastSuccessAt: p.datetime().nullable(),
    extendedLastErrorCode: p.string().nullable(),
    extendedNextRetryAt: p.datetime().nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p.datetime().onCreate(() => new Date()).onUpdate(() => new Date()),
  },
});
