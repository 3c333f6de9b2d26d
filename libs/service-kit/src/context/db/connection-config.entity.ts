/**
 * The connection-config projection's table as the ORM sees it. The table is written with
 * hand-tuned SQL (connection-config.repository.ts); this definition exists so each app's
 * schema-drift check compares the migration against a definition instead of reporting the table
 * as unknown. List it in the app's entities.
 */
import { defineEntity, p } from '@mikro-orm/postgresql';

export const ConnectionConfigEntity = defineEntity({
  name: 'ConnectionConfigProjection',
  tableName: 'connection_config',
  properties: {
    connectionId: p.uuid().primary(),
    revision: p.integer(),
    config: p.json(),
    receivedAt: p.datetime().defaultRaw('now()'),
  },
});
