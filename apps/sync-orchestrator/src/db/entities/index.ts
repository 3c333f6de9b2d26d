import type { EntityDefinition } from '@switchyard/persistence';
import { ConnectionConfigEntity } from '@switchyard/service-kit';

/** Entities of the `sync-orchestrator` schema: so far only the connection-config projection (shared in service-kit). */
export const syncOrchestratorEntities: EntityDefinition[] = [ConnectionConfigEntity];
