import { Migration0001Enrichment } from './migration-0001-enrichment.js';

/** In order; never edit an applied migration, add the next one. */
export const enrichmentMigrations = [Migration0001Enrichment];
