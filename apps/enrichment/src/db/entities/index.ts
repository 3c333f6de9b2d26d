import type { EntityDefinition } from '@switchyard/persistence';
import { VehicleVisibilityEntity } from '@switchyard/service-kit';
import { ENRICHMENT_ENTITIES } from './enrichment.entities.js';

/** Entities of the `enrichment` schema: the vehicle-visibility projection, the VIN projection, products, vendor cache and budget. */
export const enrichmentEntities: EntityDefinition[] = [VehicleVisibilityEntity, ...ENRICHMENT_ENTITIES];
