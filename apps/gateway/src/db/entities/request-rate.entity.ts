/**
 * `request_rate_bucket` of migrations 0006 and 0007 as the ORM sees it (for the schema-drift check
 * only; the table is read and written by the request rate reconciliation, request-rate.repository.ts).
 * `last_allowed` was the per-request take's answer; the reconciliation writes it true.
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
  indexes: [{ name: 'request_rate_bucket_changed', properties: ['refilledAt'] }],
});
