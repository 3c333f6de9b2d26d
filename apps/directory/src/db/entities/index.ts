import type { EntityDefinition } from '@switchyard/persistence';
import { ConnectionConfigEntity } from '@switchyard/service-kit';

/** Entities of the `directory` schema: so far only the connection-config projection (shared in service-kit). */
export const directoryEntities: EntityDefinition[] = [ConnectionConfigEntity];
