import type { EntityDefinition } from '@switchyard/persistence';
import { ConnectionConfigEntity, INGEST_LEDGER_ENTITIES, VehicleVisibilityEntity } from '@switchyard/service-kit';
import { LatestReadingEntity, ObservationEntity, UsageExcludedIntervalEntity, UsageRollupEpochEntity, UsageSlotEntity, VehicleFaultObservationEntity } from './telemetry.entities.js';

/** Entities of the `telemetry` schema: the connection-config projection, observations, latest readings, the ingest ledger and the read projections (visibility, fault observation) and the usage rollups. */
export const telemetryIngestEntities: EntityDefinition[] = [
  ConnectionConfigEntity,
  ObservationEntity,
  LatestReadingEntity,
  VehicleVisibilityEntity,
  VehicleFaultObservationEntity,
  UsageSlotEntity,
  UsageExcludedIntervalEntity,
  UsageRollupEpochEntity,
  ...INGEST_LEDGER_ENTITIES,
];
