/**
 * The SQL of OAuth grant refreshes (services/oauth-refresh.ts), on the caller's transaction:
 * - `lockGrantRefresh`: `pg_advisory_xact_lock` on the connection, in the 'SWOR' namespace (the
 *   other contexts use 'SWTP', 'SWUR', 'SWVV', 'SWFF', 'SWFR' and 0x5357; 'open-syncs' hashes into
 *   its own first key), so one refresh per connection runs at a time across gateway processes.
 *   The key's second half is `hashtext('<schema>:<connection id>')`: a collision only serializes
 *   two connections' refreshes. Released at commit or rollback;
 * - `swapSealedCredentials`: a compare-and-swap of the sealed credentials. The row changes only
 *   if it still holds the seal the refresh started from, so credentials written meanwhile (a
 *   reconnect) are never overwritten. The configuration revision is left alone.
 */
import { ormSchema, query, tableNamer, type Em } from '@switchyard/persistence';

const REFRESH_LOCK = 0x53574f52;

export async function lockGrantRefresh(em: Em, connectionId: string): Promise<void> {
  await query(em, 'select pg_advisory_xact_lock(?, hashtext(?))', [REFRESH_LOCK, `${ormSchema(em)}:${connectionId}`]);
}

/** The connection's sealed credentials as committed now (null without credentials; undefined without the row). */
export async function sealedCredentials(em: Em, connectionId: string): Promise<string | null | undefined> {
  const rows = await query<{ provider_credentials: string | null }>(em, `select provider_credentials from ${tableNamer(em)('connection')} where id = ?::uuid`, [connectionId]);
  return rows[0]?.provider_credentials;
}

/** Replaces `expected` by `next`; false when the row no longer holds `expected`. */
export async function swapSealedCredentials(em: Em, connectionId: string, expected: string, next: string): Promise<boolean> {
  const rows = await query(em, `update ${tableNamer(em)('connection')} set provider_credentials = ?, updated_at = now() where id = ?::uuid and provider_credentials = ? returning id`, [
    next,
    connectionId,
    expected,
  ]);
  return rows.length === 1;
}
