import type { EntityDefinition } from '@switchyard/persistence';
import { ConnectionConfigEntity, INGEST_LEDGER_ENTITIES } from '@switchyard/service-kit';
import { LatestReadingEntity, ObservationEntity } from './telemetry.entities.js';

/** Entities of the `telemetry` schema: the connection-config projection, observations, latest readings and the ingest ledger. */
export const telemetryIngestEntities: EntityDefinition[] = [ConnectionConfigEntity, ObservationEntity, LatestReadingEntity, ...INGEST_LEDGER_ENTITIES];
