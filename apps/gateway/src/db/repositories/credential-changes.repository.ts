/**
 * The SQL of the principal cache's invalidation (auth/credential-change-listener.ts, decision
 * 0031): a credential, grant or connection change NOTIFYs one channel in its own transaction, so
 * every gateway process LISTENing on it hears of the change when — and only if — it commits. The
 * channel is per gateway schema (two deployments in one database, or parallel test schemas, do not
 * clear each other's caches); its name is a hash, as channel names are limited to 63 bytes.
 */
import { createHash } from 'node:crypto';
import { ormSchema, query, type Em, type Orm } from '@switchyard/persistence';

export function credentialChangesChannel(source: Orm | Em): string {
  return `switchyard_credentials_${createHash('sha256').update(ormSchema(source)).digest('hex').slice(0, 20)}`;
}

/** Announces a change at the commit of `em`'s transaction (NOTIFY is transactional). */
export async function notifyCredentialsChanged(em: Em): Promise<void> {
  await query(em, 'select pg_notify(?, ?)', [credentialChangesChannel(em), '']);
}

/** The statement a listening connection runs (the channel is ours, hex: no quoting issue). */
export function listenStatement(channel: string): string {
  return `listen "${channel}"`;
}
