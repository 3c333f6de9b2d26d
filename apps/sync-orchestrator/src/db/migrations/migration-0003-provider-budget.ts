/**
 * The request budget of each provider account, shared by every collector process working that
 * account (issue 4: "several collectors never exceed the provider's limit together"): a token
 * bucket per row, refilled from the database clock and taken by one conditional UPDATE
 * (db/repositories/provider-budget.repository.ts).
 *
 * Invariants kept by the shape: `account_key` is a provider name plus a hash of the credential
 * (never the credential itself); `tokens` never exceeds `burst` after a take (least(burst, …));
 * `refilled_at` only moves forward; `paused_until` (a 429's Retry-After) only moves forward, so
 * a shorter pause announced later never cuts a longer one short.
 */
import { SchemaMigration } from '@switchyard/persistence';

export class Migration0003ProviderBudget extends SchemaMigration {
  override up(): void {
    this.addSql(`
create table ${this.table('provider_budget')} (
  account_key text primary key,
  provider text not null,
  rate double precision not null,
  burst double precision not null,
  tokens double precision not null,
  refilled_at timestamptz not null,
  paused_until timestamptz null,
  -- Cast to numeric: PostgreSQL prints a double comparison as (0)::double precision, which
  -- MikroORM's drift check cannot parse back; the numeric form round-trips.
  constraint provider_budget_rate_check check (rate::numeric > 0),
  constraint provider_budget_burst_check check (burst::numeric >= 1)
);`);
  }
}
