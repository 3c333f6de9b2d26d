/**
 * Feeding the orchestrator's projections over the bus exactly as the gateway feeds them —
 * connection configurations and application grant snapshots — and waiting until they are applied,
 * for the suites that drive the `sync.*` RPCs directly (no gateway): what a test passes as the
 * caller is then exactly what the gateway would have sent after authenticating the call.
 */
import { randomUUID } from 'node:crypto';
import { defaultConnectionConfig } from '@switchyard/domain';
import { EVENTS, subjectFor, type ApplicationGrantV1, type ConnectionConfigV1, type SyncCallerV1 } from '@switchyard/messaging';
import { pollUntil, type ServiceUnderTest } from '@switchyard/testing';

export type GrantSnapshot = Omit<ApplicationGrantV1, 'updatedAt'>;

export interface ProjectionFeed {
  /** SQL on the orchestrator's pool; `$s` is its schema. */
  sql<T>(text: string, params?: unknown[]): Promise<T[]>;
  publishConfig(config: ConnectionConfigV1): Promise<void>;
  /** Publishes the snapshot and, unless `wait` is false, waits until the projection holds it (its versions, and its tokens when it has them). */
  publishGrant(snapshot: GrantSnapshot, wait?: boolean): Promise<void>;
}

export function projectionFeed(h: ServiceUnderTest): ProjectionFeed {
  const sql = <T>(text: string, params: unknown[] = []) => h.service.runtime.orm.em.fork().execute<T[]>(text.replaceAll('$s', `"${h.schema}"`), params);
  return {
    sql,
    async publishConfig(config) {
      await h.client.publish(EVENTS.connectionConfigChanged, subjectFor(EVENTS.connectionConfigChanged.subject, config.connectionId), config, {
        msgId: `connection-config:${config.connectionId}:${config.revision}`,
      });
      await pollUntil(async () => (await sql<{ revision: number }>('select revision from $s.connection_config where connection_id = ?::uuid', [config.connectionId]))[0]?.revision === config.revision);
    },
    async publishGrant(snapshot, wait = true) {
      const tokenVersion = snapshot.tokenVersion ?? 0;
      await h.client.publish(EVENTS.applicationGrantChanged, subjectFor(EVENTS.applicationGrantChanged.subject, snapshot.applicationId), { ...snapshot, updatedAt: new Date().toISOString() }, {
        // A fresh suffix: a republished snapshot (same versions) must not be taken for a duplicate.
        msgId: `application-grant:${snapshot.applicationId}:${snapshot.credentialVersion}:${tokenVersion}:${randomUUID()}`,
      });
      if (!wait) return;
      await pollUntil(async () => {
        const row = (
          await sql<{ credential_version: number; token_version: number; known: boolean }>(
            'select credential_version, token_version, connection_tokens is not null as known from $s.application_credential where application_id = ?::uuid',
            [snapshot.applicationId],
          )
        )[0];
        return row?.credential_version === snapshot.credentialVersion && row.token_version === tokenVersion && (snapshot.connectionTokens === undefined || row.known);
      });
    },
  };
}

/** A collecting samsara connection (vehicles purpose only: one unit per approved vehicle) at revision 2. */
export function collectingConfig(connectionId: string, vehicles: number, patch: Partial<ConnectionConfigV1> = {}): ConnectionConfigV1 {
  return {
    ...defaultConnectionConfig(connectionId, 'samsara', 'sandbox'),
    unifiedCollection: true,
    purposes: { vehicles: true, groupMemberships: false, trips: false },
    approvedVehicleIds: Array.from({ length: vehicles }, (_, i) => `veh-${i}`),
    revision: 2,
    ...patch,
  } as ConnectionConfigV1;
}

/** The caller the gateway sends after accepting `tokenId` with the snapshot's versions. */
export function callerFor(snapshot: GrantSnapshot, connectionId: string, tokenId: string): SyncCallerV1 {
  return { applicationId: snapshot.applicationId, connectionId, credentialVersion: snapshot.credentialVersion, connectionToken: { id: tokenId, tokenVersion: snapshot.tokenVersion ?? 0 } };
}
