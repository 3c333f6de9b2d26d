/**
 * Connect sessions and Geotab account bindings (migration 0005). Definitions match the migration
 * column for column (test/schema-drift.int-spec.ts); the SQL lives in
 * ../repositories/connect-session.repository.ts.
 */
import { defineEntity, p } from '@mikro-orm/postgresql';
import { Connection } from './connection.entity.js';
import { ConsumerKey } from './credential.entity.js';

const reference = <T extends Parameters<typeof p.manyToOne>[0]>(target: T, table: string, column: string) =>
  p.manyToOne(target).mapToPk().fieldName(column).foreignKeyName(`${table}_${column}_fkey`).updateRule('no action').deleteRule('no action');

export const ConnectSession = defineEntity({
  name: 'ConnectSession',
  tableName: 'connect_session',
  properties: {
    id: p.uuid().primary(),
    connectionId: reference(Connection, 'connect_session', 'connection_id'),
    consumerKeyId: reference(ConsumerKey, 'connect_session', 'consumer_key_id'),
    pageTokenHash: p.blob().unique('connect_session_page_token_hash_key'),
    status: p.text(),
    createdAt: p.datetime(),
    expiresAt: p.datetime(),
    startedAt: p.datetime().nullable(),
    consumedAt: p.datetime().nullable(),
    acceptedAt: p.datetime().nullable(),
    completedAt: p.datetime().nullable(),
    enrollmentMethod: p.text().nullable(),
    disclosureVersion: p.text().nullable(),
    selectedSignals: p.json().nullable(),
    providerIdentity: p.text().nullable(),
    failureReason: p.text().nullable(),
    oauthStateHash: p.blob().nullable(),
  },
  indexes: [
    { name: 'connect_session_rate', properties: ['consumerKeyId', 'connectionId', 'createdAt'] },
    { name: 'connect_session_oauth_state', properties: ['oauthStateHash'] },
  ],
  checks: [
    { name: 'connect_session_status_check', expression: "status in ('created', 'started', 'consumed', 'complete', 'failed', 'cancelled')" },
    { name: 'connect_session_method_check', expression: "enrollment_method is null or enrollment_method in ('oauth', 'api_token', 'service_account')" },
  ],
});

export const GeotabBinding = defineEntity({
  name: 'GeotabBinding',
  tableName: 'geotab_binding',
  properties: {
    connectionId: reference(Connection, 'geotab_binding', 'connection_id').primary(),
    database: p.text(),
    server: p.text(),
    createdAt: p.datetime().defaultRaw('now()').onCreate(() => new Date()),
  },
});
