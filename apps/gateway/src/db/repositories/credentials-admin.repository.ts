/**
 * The SQL behind operator changes to application credentials (services/credentials-admin.service.ts).
 * Invariant: a version bump is one statement on the caller's transaction (`x = x + 1`), so
 * concurrent changes never lose an increment to a read-modify-write race.
 */
import { query, tableNamer, type Em } from '@switchyard/persistence';

type ApplicationVersionColumn = 'credential_version' | 'token_version';

export async function bumpApplicationVersion(em: Em, applicationId: string, column: ApplicationVersionColumn): Promise<void> {
  await query(em, `update ${tableNamer(em)('application')} set ${column} = ${column} + 1 where id = ?::uuid`, [applicationId]);
}
