/**
 * The projection of application credentials, grants and active Connection-Tokens (fed by the
 * gateway's `events.credentials.application.<id>` snapshots) and the recheck that reads it.
 * Invariants: a snapshot is applied only when its (credentialVersion, tokenVersion) pair is higher
 * than the stored one, compared in that order, so redelivered or reordered events never roll a grant
 * or a token back — with one exception that cannot roll anything back: a snapshot at the stored pair
 * that knows the tokens fills a row whose tokens are unknown (`connection_tokens` null: projected
 * before migration 0011, or from a gateway that predates the token recheck), which is how
 * `grants:republish` completes such rows. The recheck takes the row `for share` inside the sync
 * transaction, so a grant or token change that arrives meanwhile waits for that transaction to
 * commit and cannot slip between the check and the write.
 */
import type { ApplicationGrantV1 } from '@switchyard/messaging';
import { query, tableNamer, type Em } from '@switchyard/persistence';

type ConnectionTokens = NonNullable<ApplicationGrantV1['connectionTokens']>;

export interface ApplicationCredentialRow {
  applicationId: string;
  environment: 'sandbox' | 'production';
  revoked: boolean;
  credentialVersion: number;
  tokenVersion: number;
  grants: ApplicationGrantV1['grants'];
  /** The active Connection-Tokens; null while unknown (see the header). */
  connectionTokens: ConnectionTokens | null;
}

export class ApplicationCredentialRepository {
  /** True when the snapshot was newer than the stored one (or completed its unknown tokens) and was applied. */
  async apply(em: Em, snapshot: ApplicationGrantV1): Promise<boolean> {
    const t = tableNamer(em)('application_credential');
    const rows = await query<{ application_id: string }>(
      em,
      `insert into ${t} (application_id, environment, revoked, credential_version, token_version, grants, connection_tokens)
       values (?::uuid, ?, ?, ?, ?, ?::jsonb, ?::jsonb)
       on conflict (application_id) do update
         set environment = excluded.environment, revoked = excluded.revoked, credential_version = excluded.credential_version,
             token_version = excluded.token_version, grants = excluded.grants, connection_tokens = excluded.connection_tokens, received_at = now()
       where (${t}.credential_version, ${t}.token_version) < (excluded.credential_version, excluded.token_version)
          or ((${t}.credential_version, ${t}.token_version) = (excluded.credential_version, excluded.token_version)
              and ${t}.connection_tokens is null and excluded.connection_tokens is not null)
       returning application_id`,
      [
        snapshot.applicationId,
        snapshot.environment,
        snapshot.revoked,
        snapshot.credentialVersion,
        snapshot.tokenVersion ?? 0,
        JSON.stringify(snapshot.grants),
        snapshot.connectionTokens === undefined ? null : JSON.stringify(snapshot.connectionTokens),
      ],
    );
    return rows.length > 0;
  }

  /** The application's row, share-locked until the surrounding transaction ends. */
  async lockForRecheck(em: Em, applicationId: string): Promise<ApplicationCredentialRow | undefined> {
    const rows = await query<{
      application_id: string;
      environment: 'sandbox' | 'production';
      revoked: boolean;
      credential_version: number;
      token_version: number;
      grants: ApplicationGrantV1['grants'];
      connection_tokens: ConnectionTokens | null;
    }>(
      em,
      `select application_id, environment, revoked, credential_version, token_version, grants, connection_tokens
         from ${tableNamer(em)('application_credential')} where application_id = ?::uuid for share`,
      [applicationId],
    );
    const row = rows[0];
    return (
      row && {
        applicationId: row.application_id,
        environment: row.environment,
        revoked: row.revoked,
        credentialVersion: row.credential_version,
        tokenVersion: row.token_version,
        grants: row.grants,
        connectionTokens: row.connection_tokens,
      }
    );
  }

  async get(em: Em, applicationId: string): Promise<{ credentialVersion: number } | undefined> {
    const rows = await query<{ credential_version: number }>(em, `select credential_version from ${tableNamer(em)('application_credential')} where application_id = ?::uuid`, [applicationId]);
    return rows[0] && { credentialVersion: rows[0].credential_version };
  }
}
