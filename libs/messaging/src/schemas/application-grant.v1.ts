/**
 * `events.credentials.application.<applicationId>` v1: the whole credential state of one
 * application — revoked or not, its environment, every connection grant with its sync operations,
 * and its active Connection-Tokens — published by the gateway in the same transaction that changes
 * it, and kept by the sync-orchestrator as the projection it rechecks inside every sync transaction
 * (spec 5 rule 2).
 * Invariant: a snapshot, never a patch, and the pair (`credentialVersion`, `tokenVersion`) strictly
 * increases per application on every change (grant change or revocation: credentialVersion; token
 * issued or revoked: tokenVersion), so a consumer keeps the highest pair it has seen (compared in
 * that order) and ignores older ones. Issuing or revoking a token leaves credentialVersion alone, so
 * cursors bound to it survive a token issued for another connection.
 * Compatibility: `tokenVersion` and `connectionTokens` are absent only in snapshots of a gateway that
 * predates the token recheck; a consumer reads that as "token version 0, active tokens unknown".
 */
import { z } from 'zod';

export const syncOperationV1 = z.enum(['sync.create', 'sync.read', 'sync.retry', 'sync.cancel']);

export const applicationGrantV1 = z
  .object({
    applicationId: z.uuid(),
    environment: z.enum(['sandbox', 'production']),
    revoked: z.boolean(),
    credentialVersion: z.number().int().positive(),
    /** One entry per connection the application holds a grant on; no entry = no grant. */
    grants: z.array(
      z
        .object({
          connectionId: z.uuid(),
          operations: z.array(syncOperationV1),
          /** Backfill before now (a selector reaching into the past) needs this. */
          history: z.boolean(),
        })
        .strict(),
    ),
    /** Bumped by every Connection-Token issued or revoked for the application; starts at 0. */
    tokenVersion: z.number().int().nonnegative().optional(),
    /** Every unrevoked Connection-Token of the application, with the connection it is for. */
    connectionTokens: z.array(z.object({ id: z.uuid(), connectionId: z.uuid() }).strict()).optional(),
    updatedAt: z.iso.datetime({ offset: true }),
  })
  .strict();

export type ApplicationGrantV1 = z.output<typeof applicationGrantV1>;
export type SyncOperationV1 = z.output<typeof syncOperationV1>;
