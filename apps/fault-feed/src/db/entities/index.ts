import type { EntityDefinition } from '@switchyard/persistence';

/** Entities of the `fault-feed` schema (none yet beyond the projections' hand-written tables). */
export const faultFeedEntities: EntityDefinition[] = [];
