import { Migration0001ConnectionConfigProjection } from '@switchyard/service-kit';
import { Migration0002DirectoryIngest } from './migration-0002-directory-ingest.js';

/** In order; never edit an applied migration, add the next one. */
export const directoryMigrations = [Migration0001ConnectionConfigProjection, Migration0002DirectoryIngest];
