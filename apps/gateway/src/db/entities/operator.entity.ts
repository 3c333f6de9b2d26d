/**
 * The operator console's tables of migration 0008 as the ORM sees them (the schema-drift check
 * compares them column for column): operator credentials, issued by the operator CLI, and the
 * console sessions they open. Both store a public lookup id and the SHA-256 of the secret only.
 */
import { defineEntity, p } from '@mikro-orm/postgresql';
import { issuedCredentialColumns } from './credential.entity.js';

export const OperatorCredential = defineEntity({
  name: 'OperatorCredential',
  tableName: 'operator_credential',
  properties: {
    ...issuedCredentialColumns('operator_credential'),
    name: p.text(),
  },
});

export const ConsoleSession = defineEntity({
  name: 'ConsoleSession',
  tableName: 'console_session',
  properties: {
    id: p.uuid().primary(),
    lookupId: p.text().unique('console_session_lookup_id_key'),
    secretHash: p.blob(),
    operatorId: p.manyToOne(OperatorCredential).mapToPk().fieldName('operator_id').foreignKeyName('console_session_operator_id_fkey').updateRule('no action').deleteRule('no action'),
    createdAt: p.datetime().defaultRaw('now()').onCreate(() => new Date()),
    expiresAt: p.datetime(),
  },
  indexes: [{ name: 'console_session_expiry', properties: ['expiresAt'] }],
});
