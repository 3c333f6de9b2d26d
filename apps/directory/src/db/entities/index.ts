import type { EntityDefinition } from '@switchyard/persistence';

/** Entities of the `directory` schema (none yet beyond the projections' hand-written tables). */
export const directoryEntities: EntityDefinition[] = [];
