import { Migration0001Enrichment } from './migration-0001-enrichment.js';
import { Migration0002VisibilityShown } from './migration-0002-visibility-shown.js';

/** In order; never edit an applied migration, add the next one. */
export const enrichmentMigrations = [Migration0001Enrichment, Migration0002VisibilityShown];
