import type { EntityDefinition } from '@switchyard/persistence';

/** Entities of the `telemetry-ingest` schema (none yet beyond the projections' hand-written tables). */
export const telemetryIngestEntities: EntityDefinition[] = [];
