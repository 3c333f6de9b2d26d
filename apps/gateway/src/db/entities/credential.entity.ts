/**
 * Gateway entities (MikroORM `defineEntity`, no decorators). Tables are created by the SQL
 * migrations in ../migrations; these definitions must match them column for column, constraint for
 * constraint (test/schema-drift.int-spec.ts compares the ORM's view with the live schema). The
 * references are many-to-one mapped to the primary key, so the properties stay plain ids.
 */
import { defineEntity, p } from '@mikro-orm/postgresql';
import { Connection, ENVIRONMENT_CHECK } from './connection.entity.js';

/** A `references table(id)` column: PostgreSQL's default constraint name and rules (`on delete cascade` when asked). */
export const reference = <T extends Parameters<typeof p.manyToOne>[0]>(target: T, table: string, column: string, onDelete: 'no action' | 'cascade' = 'no action') =>
  p.manyToOne(target).mapToPk().fieldName(column).foreignKeyName(`${table}_${column}_fkey`).updateRule('no action').deleteRule(onDelete);

/** Columns every issued credential has: its public lookup id / display prefix and the SHA-256 of the token. */
export const issuedCredentialColumns = (table: string) => ({
  id: p.uuid().primary(),
  lookupId: p.text().unique(`${table}_lookup_id_key`),
  displayPrefix: p.text(),
  secretHash: p.blob(),
  createdAt: p.datetime().defaultRaw('now()').onCreate(() => new Date()),
  revokedAt: p.datetime().nullable(),
});

export const Application = defineEntity({
  name: 'Application',
  tableName: 'application',
  properties: {
    ...issuedCredentialColumns('application'),
    name: p.text(),
    environment: p.text(),
    credentialVersion: p.integer().default(1),
    /** Bumped by every Connection-Token issued or revoked for the application (migration 0004). */
    tokenVersion: p.integer().default(0),
  },
  checks: [{ name: 'application_environment_check', expression: ENVIRONMENT_CHECK }],
});

export const ConnectionToken = defineEntity({
  name: 'ConnectionToken',
  tableName: 'connection_token',
  properties: {
    ...issuedCredentialColumns('connection_token'),
    applicationId: reference(Application, 'connection_token', 'application_id'),
    connectionId: reference(Connection, 'connection_token', 'connection_id'),
  },
  indexes: [{ name: 'connection_token_app_conn', properties: ['applicationId', 'connectionId'] }],
});

export const ApplicationGrant = defineEntity({
  name: 'ApplicationGrant',
  tableName: 'application_grant',
  properties: {
    applicationId: reference(Application, 'application_grant', 'application_id').primary(),
    connectionId: reference(Connection, 'application_grant', 'connection_id').primary(),
    operations: p.array().defaultRaw("'{}'"),
    history: p.boolean().default(false),
    createdAt: p.datetime().defaultRaw('now()').onCreate(() => new Date()),
    updatedAt: p.datetime().defaultRaw('now()').onCreate(() => new Date()).onUpdate(() => new Date()),
  },
});

export const ConsumerKey = defineEntity({
  name: 'ConsumerKey',
  tableName: 'consumer_key',
  properties: {
    ...issuedCredentialColumns('consumer_key'),
    name: p.text(),
    credentialVersion: p.integer().default(1),
  },
});

export const ConsumerGrant = defineEntity({
  name: 'ConsumerGrant',
  tableName: 'consumer_grant',
  properties: {
    consumerKeyId: reference(ConsumerKey, 'consumer_grant', 'consumer_key_id').primary(),
    connectionId: reference(Connection, 'consumer_grant', 'connection_id').primary(),
    permissions: p.array(),
    createdAt: p.datetime().defaultRaw('now()').onCreate(() => new Date()),
  },
});
