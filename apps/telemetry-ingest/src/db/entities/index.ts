import type { EntityDefinition } from '@switchyard/persistence';
import { ConnectionConfigEntity } from '@switchyard/service-kit';

/** Entities of the `telemetry-ingest` schema: so far only the connection-config projection (shared in service-kit). */
export const telemetryIngestEntities: EntityDefinition[] = [ConnectionConfigEntity];
