import { Migration0001ConnectionConfigProjection } from '@switchyard/service-kit';

/** In order; never edit an applied migration, add the next one. */
export const syncOrchestratorMigrations = [Migration0001ConnectionConfigProjection];
