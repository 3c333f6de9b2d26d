import type { EntityDefinition } from '@switchyard/persistence';

/** Entities of the `enrichment` schema (none yet beyond the projections' hand-written tables). */
export const enrichmentEntities: EntityDefinition[] = [];
