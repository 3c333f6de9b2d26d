import type { EntityDefinition } from '@switchyard/persistence';
import { ConnectionConfigEntity, OutboxMessage } from '@switchyard/service-kit';
import { ProviderBudgetEntity } from './provider-budget.entity.js';
import { RefreshSlotEntity } from './refresh-slot.entity.js';
import { ApplicationCredentialEntity, SyncEntity, SyncReceiptEntity, SyncUnitEntity } from './sync.entities.js';
import { SyncScheduleEntity } from './sync-schedule.entity.js';
import { SyncUnitBatchEntity } from './unit-batch.entity.js';

/** Entities of the `sync` schema: the connection-config projection (shared in service-kit), the sync lifecycle tables, the shared provider request budgets, the collection schedules, the refresh slots and the outbox (sync outcomes). */
export const syncOrchestratorEntities: EntityDefinition[] = [ConnectionConfigEntity, SyncEntity, SyncUnitEntity, SyncReceiptEntity, SyncUnitBatchEntity, ApplicationCredentialEntity, ProviderBudgetEntity, SyncScheduleEntity, RefreshSlotEntity, OutboxMessage];
