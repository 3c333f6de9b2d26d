import type { EntityDefinition } from '@switchyard/persistence';
import { ConnectionConfigEntity, ingestLedgerEntities } from '@switchyard/service-kit';
import { DIRECTORY_INGEST_ENTITIES } from './directory.entities.js';

/**
 * Entities of the `directory` schema: the connection-config projection (service-kit), the directory
 * store and the ingest ledger, whose `ingest_batch` has the by-connection index of migration 0010.
 */
export const directoryEntities: EntityDefinition[] = [
  ConnectionConfigEntity,
  ...DIRECTORY_INGEST_ENTITIES,
  ...ingestLedgerEntities([{ name: 'ingest_batch_connection_idx', properties: ['connectionId', 'kind', 'fetchedAt'] }]),
];
