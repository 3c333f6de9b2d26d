/**
 * Gateway entities (MikroORM `defineEntity`, no decorators). Tables are created by the SQL
 * migrations in ../migrations; these definitions must match them column for column (the
 * migration test compares the ORM's view with the live schema).
 */
import { defineEntity, p } from '@mikro-orm/postgresql';

/** Columns every issued credential has: its public lookup id / display prefix and the SHA-256 of the token. */
const issuedCredentialColumns = () => ({
  id: p.uuid().primary(),
  lookupId: p.string().unique(),
  displayPrefix: p.string(),
  secretHash: p.blob(),
  createdAt: p.datetime().onCreate(() => new Date()),
  revokedAt: p.datetime().nullable(),
});

export const Application = defineEntity({
  name: 'Application',
  tableName: 'application',
  properties: {
    ...issuedCredentialColumns(),
    name: p.string(),
    environment: p.string(),
    credentialVersion: p.integer().default(1),
    /** Bumped by every Connection-Token issued or revoked for the application (migration 0004). */
    tokenVersion: p.integer().default(0),
  },
});

export const ConnectionToken = defineEntity({
  name: 'ConnectionToken',
  tableName: 'connection_token',
  properties: {
    ...issuedCredentialColumns(),
    applicationId: p.uuid(),
    connectionId: p.uuid(),
  },
});

export const ApplicationGrant = defineEntity({
  name: 'ApplicationGrant',
  tableName: 'application_grant',
  properties: {
    applicationId: p.uuid().primary(),
    connectionId: p.uuid().primary(),
    operations: p.array(),
    history: p.boolean().default(false),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p.datetime().onCreate(() => new Date()).onUpdate(() => new Date()),
  },
});

export const ConsumerKey = defineEntity({
  name: 'ConsumerKey',
  tableName: 'consumer_key',
  properties: {
    ...issuedCredentialColumns(),
    name: p.string(),
    credentialVersion: p.integer().default(1),
  },
});

export const ConsumerGrant = defineEntity({
  name: 'ConsumerGrant',
  tableName: 'consumer_grant',
  properties: {
    consumerKeyId: p.uuid().primary(),
    connectionId: p.uuid().primary(),
    permissions: p.array(),
    createdAt: p.datetime().onCreate(() => new Date()),
  },
});
