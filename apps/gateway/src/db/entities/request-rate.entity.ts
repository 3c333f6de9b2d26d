/**
 * `request_rate_bucket` of migration 0006 as the ORM sees it (for the schema-drift check only; the
 * table is read and written by the one-statement take of the request rate limit, auth.repository.ts).
 */
import { defineEntity, p } from '@mikro-orm/postgresql';

export const RequestRateBucket = defineEntity({
  name: 'RequestRateBucket',
  tableName: 'request_rate_bucket',
  properties: {
    subject: p.text().primary(),
    tokens: p.double(),
    refilledAt: p.datetime(),
    lastAllowed: p.boolean(),
  },
});
