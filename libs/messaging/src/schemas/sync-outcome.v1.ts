/**
 * `events.sync.outcome.<connectionId>` v1: a public sync (origin `api`) reached `completed` or
 * `failed` (by its last receipt, a collection failure, a rejected batch or a cancel). Published by
 * the sync-orchestrator from its outbox (written in the transaction that moved the sync), so the
 * outcome is told exactly when it committed and never when it did not. Consumed by the gateway's
 * webhook delivery role (`sync.completed`, `sync.failed`; docs/webhooks.md).
 * Invariant: `eventId` is a name-based UUID of (sync id, attempt, status) — the same outcome told
 * twice has the same id; a retried sync that completes again is a new attempt and a new event.
 */
import { z } from 'zod';
import { syncRecordV1 } from './sync-api.v1.js';

export const syncOutcomeV1 = z
  .object({
    eventId: z.uuid().describe('nameUuid("sync-outcome", syncId, attempt, status): stable for this outcome of this attempt.'),
    connectionId: z.uuid(),
    /** The application that created the sync (internal runs have none and publish no outcome). */
    applicationId: z.uuid(),
    /** The public Sync exactly as GET /v1/syncs/{id} answers it right after the commit. */
    sync: syncRecordV1,
    /** When the outcome committed. */
    occurredAt: z.iso.datetime({ offset: true }),
  })
  .strict()
  .refine((e) => e.sync.status === 'completed' || e.sync.status === 'failed', 'an outcome is completed or failed');

export type SyncOutcomeV1 = z.output<typeof syncOutcomeV1>;
