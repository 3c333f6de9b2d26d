/**
 * `provider_budget` of migration 0003 as the ORM sees it (for the schema-drift check only; the
 * table is read and written by the one-statement SQL of provider-budget.repository.ts).
 */
import { defineEntity, p } from '@mikro-orm/postgresql';

export const ProviderBudgetEntity = defineEntity({
  name: 'ProviderBudget',
  tableName: 'provider_budget',
  properties: {
    accountKey: p.text().primary(),
    provider: p.text(),
    rate: p.double(),
    burst: p.double(),
    tokens: p.double(),
    refilledAt: p.datetime(),
    pausedUntil: p.datetime().nullable(),
  },
  checks: [
    { name: 'provider_budget_rate_check', expression: 'rate::numeric > 0' },
    { name: 'provider_budget_burst_check', expression: 'burst::numeric >= 1' },
  ],
});
