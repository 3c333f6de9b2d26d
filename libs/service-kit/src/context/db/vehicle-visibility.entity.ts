/**
 * The vehicle-visibility projection's table as the ORM sees it (written with the conditional upsert
 * of vehicle-visibility.repository.ts; the DDL is in each context's own migration). List it in the
 * app's entities so its schema-drift check compares the migration against a definition.
 */
import { defineEntity, p } from '@mikro-orm/postgresql';

export const VehicleVisibilityEntity = defineEntity({
  name: 'VehicleVisibilityProjection',
  tableName: 'vehicle_visibility',
  properties: {
    connectionId: p.uuid().primary(),
    sequence: p.bigint(),
    configRevision: p.integer().nullable(),
    hidden: p.json(),
    shown: p.json().nullable(),
    receivedAt: p.datetime().defaultRaw('now()'),
  },
});
