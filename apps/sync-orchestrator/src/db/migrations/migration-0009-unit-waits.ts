/**
 * Two waits of a unit that are not failures (issue 4 known gaps):
 * - awaiting receipts: a collector that published a unit's final batch stamps the unit with its
 *   fencing token and a deadline (`awaiting_token`, `awaiting_receipts_until`); while the token is
 *   still the unit's current one and the deadline has not passed, the unit is NOT leased again even
 *   after its collector lease ran out — a context slower to commit than the lease no longer makes a
 *   finished unit be collected twice. After the deadline the unit is re-leased (the receipts are
 *   presumed lost) and a retry (new token) ends the wait at once;
 * - throttled: a job that ended in `provider_throttled` puts its units back with
 *   `lease_expires_at = now + Retry-After` without counting an error attempt; `throttle_requeues`
 *   counts these re-queues for the unit's attempt `throttle_attempt` (a retry starts a new count
 *   without resetting it here), bounded by COLLECTOR_MAX_THROTTLE_REQUEUES.
 * Additive: new nullable / defaulted columns only.
 */
import { SchemaMigration } from '@switchyard/persistence';

export class Migration0009UnitWaits extends SchemaMigration {
  override up(): void {
    this.addSql(`alter table ${this.table('sync_unit')}
  add column awaiting_token bigint null,
  add column awaiting_receipts_until timestamptz null,
  add column throttle_requeues integer not null default 0,
  add column throttle_attempt integer not null default 0;`);
  }
}
