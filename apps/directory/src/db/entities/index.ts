import type { EntityDefinition } from '@switchyard/persistence';
import { ConnectionConfigEntity, INGEST_LEDGER_ENTITIES } from '@switchyard/service-kit';
import { DIRECTORY_INGEST_ENTITIES } from './directory.entities.js';

/** Entities of the `directory` schema: the connection-config projection (service-kit), the directory store and the ingest ledger. */
export const directoryEntities: EntityDefinition[] = [ConnectionConfigEntity, ...DIRECTORY_INGEST_ENTITIES, ...INGEST_LEDGER_ENTITIES];
