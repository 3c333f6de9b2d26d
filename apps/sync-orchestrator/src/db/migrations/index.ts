import { Migration0001ConnectionConfigProjection } from './migration-0001-connection-config-projection.js';
import { Migration0002Syncs } from './migration-0002-syncs.js';
import { Migration0003ProviderBudget } from './migration-0003-provider-budget.js';
import { Migration0004UnitErrors } from './migration-0004-unit-errors.js';
import { Migration0005ConnectionHealth } from './migration-0005-connection-health.js';
import { Migration0006UnitBatches } from './migration-0006-unit-batches.js';
import { Migration0007InternalRuns } from './migration-0007-internal-runs.js';
import { Migration0008ScheduledCollection } from './migration-0008-scheduled-collection.js';
import { Migration0009UnitWaits } from './migration-0009-unit-waits.js';
import { Migration0010ScheduleWindowParts } from './migration-0010-schedule-window-parts.js';
import { Migration0011ApplicationTokens } from './migration-0011-application-tokens.js';
import { Migration0012SyncCorrelation } from './migration-0012-sync-correlation.js';
import { Migration0013RefreshSlots } from './migration-0013-refresh-slots.js';
import { Migration0014FencedWrites } from './migration-0014-fenced-writes.js';
import { Migration0015SyncOutbox } from './migration-0015-sync-outbox.js';

/** In order; never edit an applied migration, add the next one. */
export const syncOrchestratorMigrations = [
  Migration0001ConnectionConfigProjection,
  Migration0002Syncs,
  Migration0003ProviderBudget,
  Migration0004UnitErrors,
  Migration0005ConnectionHealth,
  Migration0006UnitBatches,
  Migration0007InternalRuns,
  Migration0008ScheduledCollection,
  Migration0009UnitWaits,
  Migration0010ScheduleWindowParts,
  Migration0011ApplicationTokens,
  Migration0012SyncCorrelation,
  Migration0013RefreshSlots,
  Migration0014FencedWrites,
  Migration0015SyncOutbox,
];
