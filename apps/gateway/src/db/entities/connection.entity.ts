/**
 * A customer's authorized link to one provider account. Provider credentials are sealed
 * (services/secret-box.ts); `config` is the ConnectionConfig of libs/domain, published to the
 * contexts on every change with a monotonic `configRevision`.
 */
import { defineEntity, p } from '@mikro-orm/postgresql';

/** The `environment` check of migration 0001, on `connection` and `application` alike. */
export const ENVIRONMENT_CHECK = "environment in ('sandbox', 'production')";

export const Connection = defineEntity({
  name: 'Connection',
  tableName: 'connection',
  properties: {
    id: p.uuid().primary(),
    customerId: p.text(),
    provider: p.text(),
    environment: p.text(),
    providerCredentials: p.text().nullable(),
    config: p.json(),
    configRevision: p.integer().default(1),
    /** Bumped by every disconnect; cursors are bound to it (migration 0003). */
    accessEpoch: p.integer().default(1),
    /** Set by a completed connect session until the operator installs the activation policy (migration 0005). */
    activationPending: p.boolean().default(false),
    lastSuccessAt: p.datetime().nullable(),
    lastErrorCode: p.text().nullable(),
    extendedLastSuccessAt: p.datetime().nullable(),
    extendedLastErrorCode: p.text().nullable(),
    extendedNextRetryAt: p.datetime().nullable(),
    /** Why the status last changed, and when (migration 0008): shown by the operator console. */
    statusReason: p.text().nullable(),
    statusChangedAt: p.datetime().nullable(),
    createdAt: p.datetime().defaultRaw('now()').onCreate(() => new Date()),
    updatedAt: p.datetime().defaultRaw('now()').onCreate(() => new Date()).onUpdate(() => new Date()),
  },
  checks: [
    { name: 'connection_provider_check', expression: "provider in ('samsara', 'motive', 'geotab')" },
    { name: 'connection_environment_check', expression: ENVIRONMENT_CHECK },
  ],
});
