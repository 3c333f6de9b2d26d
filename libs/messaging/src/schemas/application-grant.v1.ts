/**
 * `events.credentials.application.<applicationId>` v1: the whole credential state of one
 * application — revoked or not, its environment, and every connection grant with its sync
 * operations — published by the gateway in the same transaction that changes it, and kept by the
 * sync-orchestrator as the projection it rechecks inside every sync transaction (spec 5 rule 2).
 * Invariant: a snapshot, never a patch, and `credentialVersion` strictly increases per application
 * on every change, so a consumer keeps the highest version it has seen and ignores older ones.
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
    updatedAt: z.iso.datetime({ offset: true }),
  })
  .strict();

export type ApplicationGrantV1 = z.output<typeof applicationGrantV1>;
export type SyncOperationV1 = z.output<typeof syncOperationV1>;
