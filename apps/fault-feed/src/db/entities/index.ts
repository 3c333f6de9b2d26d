import type { EntityDefinition } from '@switchyard/persistence';
import { ConnectionConfigEntity, INGEST_LEDGER_ENTITIES, VehicleVisibilityEntity } from '@switchyard/service-kit';
import { FAULT_ENTITIES } from './fault.entities.js';

/** Entities of the `faults` schema: the connection-config and vehicle-visibility projections, the fault store and the ingest ledger. */
export const faultFeedEntities: EntityDefinition[] = [ConnectionConfigEntity, VehicleVisibilityEntity, ...FAULT_ENTITIES, ...INGEST_LEDGER_ENTITIES];
