import type { EntityDefinition } from '@switchyard/persistence';

/** Entities of the `sync-orchestrator` schema (none yet beyond the projections' hand-written tables). */
export const syncOrchestratorEntities: EntityDefinition[] = [];
