/**
 * The SQL behind operator changes to a connection (services/connections-admin.service.ts).
 * Invariant: `lockForUpdate` runs on the caller's transaction and row-locks the connection, so the
 * revision and access-epoch read-modify-write that follows cannot interleave with another change.
 */
import type { ConnectionConfig } from '@switchyard/domain';
import { query, tableNamer, type Em } from '@switchyard/persistence';

export interface LockedConnection {
  config: ConnectionConfig;
  access_epoch: number;
  activation_pending: boolean;
}

export function lockConnectionForUpdate(em: Em, connectionId: string): Promise<LockedConnection | undefined> {
  return query<LockedConnection>(em, `select config, access_epoch, activation_pending from ${tableNamer(em)('connection')} where id = ?::uuid for update`, [connectionId]).then((rows) => rows[0]);
}
