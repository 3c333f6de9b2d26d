import type { EntityDefinition } from '@switchyard/persistence';
import { ConnectionConfigEntity } from '@switchyard/service-kit';
import { ApplicationCredentialEntity, SyncEntity, SyncReceiptEntity, SyncUnitEntity } from './sync.entities.js';

/** Entities of the `sync` schema: the connection-config projection (shared in service-kit) and the sync lifecycle tables. */
export const syncOrchestratorEntities: EntityDefinition[] = [ConnectionConfigEntity, SyncEntity, SyncUnitEntity, SyncReceiptEntity, ApplicationCredentialEntity];
