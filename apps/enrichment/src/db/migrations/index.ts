/** In order; never edit an applied migration, add the next one. */
export const enrichmentMigrations = [];
