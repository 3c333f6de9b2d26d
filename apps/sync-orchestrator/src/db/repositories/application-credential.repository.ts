/**
 * The projection of application credentials and grants (fed by the gateway's
 * `events.credentials.application.<id>` snapshots) and the recheck that reads it.
 * Invariants: a snapshot is applied only when its credentialVersion is higher than the stored one,
 * so redelivered or reordered events never roll a grant back; the recheck takes the row `for share`
 * inside the sync transaction, so a grant change that arrives meanwhile waits for that transaction
 * to commit and cannot slip between the check and the write.
 */
import type { ApplicationGrantV1 } from '@switchyard/messaging';
import type { Em } from '@switchyard/persistence';
import { query, tableNamer } from './sql.js';

export interface ApplicationCredentialRow {
  applicationId: string;
  environment: 'sandbox' | 'production';
  revoked: boolean;
  credentialVersion: number;
  grants: ApplicationGrantV1['grants'];
}

export class ApplicationCredentialRepository {
  /** True when the snapshot was newer than the stored one and was applied. */
  async apply(em: Em, snapshot: ApplicationGrantV1): Promise<boolean> {
    const t = tableNamer(em)('application_credential');
    const rows = await query<{ application_id: string }>(
      em,
      `insert into ${t} (application_id, environment, revoked, credential_version, grants) values (?::uuid, ?, ?, ?, ?::jsonb)
       on conflict (application_id) do update
         set environment = excluded.environment, revoked = excluded.revoked, credential_version = excluded.credential_version,
             grants = excluded.grants, received_at = now()
       where ${t}.credential_version < excluded.credential_version
       returning application_id`,
      [snapshot.applicationId, snapshot.environment, snapshot.revoked, snapshot.credentialVersion, JSON.stringify(snapshot.grants)],
    );
    return rows.length > 0;
  }

  /** The application's row, share-locked until the surrounding transaction ends. */
  async lockForRecheck(em: Em, applicationId: string): Promise<ApplicationCredentialRow | undefined> {
    const rows = await query<{ application_id: string; environment: 'sandbox' | 'production'; revoked: boolean; credential_version: number; grants: ApplicationGrantV1['grants'] }>(
      em,
      `select application_id, environment, revoked, credential_version, grants from ${tableNamer(em)('application_credential')} where application_id = ?::uuid for share`,
      [applicationId],
    );
    const row = rows[0];
    return row && { applicationId: row.application_id, environment: row.environment, revoked: row.revoked, credentialVersion: row.credential_version, grants: row.grants };
  }

  async get(em: Em, applicationId: string): Promise<{ credentialVersion: number } | undefined> {
    const rows = await query<{ credential_version: number }>(em, `select credential_version from ${tableNamer(em)('application_credential')} where application_id = ?::uuid`, [applicationId]);
    return rows[0] && { credentialVersion: rows[0].credential_version };
  }
}
