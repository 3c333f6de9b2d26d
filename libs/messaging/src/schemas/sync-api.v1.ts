/**
 * `sync.create|list|get|retry|cancel` v1: the gateway → sync-orchestrator request/reply endpoints
 * behind the public sync routes (spec 4.1). The gateway has authenticated the caller; it passes who
 * the caller is, the `credentialVersion` it authenticated with and the Connection-Token it
 * accepted, and the orchestrator rechecks them against its grant projection inside the transaction
 * (spec 5 rule 2). Failures travel as
 * RpcError codes from the contracts error table (`sync_state_conflict`, `gate_disabled`, …), which
 * the gateway renders unchanged.
 * Invariant: `syncRecordV1` is exactly the public Sync of spec 2.11 (no extra properties), so the
 * gateway returns it as-is; `syncPageV1` is the public list page the gateway builds from a list reply
 * (adds the signed `next`). Both carry their OpenAPI component name (`.meta({ id })`, last in the chain).
 */
import { SYNC_CURSOR_TTL_MS, syncIdSchema } from '@switchyard/contracts';
import { z } from 'zod';
import { nextPageField, NEXT_CONVENTION_TEXT, wireDateTimeV1 } from './public-wire.v1.js';

export const SYNC_STATUSES = ['requested', 'in_progress', 'completed', 'failed'] as const;
export const syncStatusV1 = z.enum(SYNC_STATUSES);
export const PROVIDER_REQUESTS = ['historical_files', 'provision_credentials'] as const;
export const providerRequestV1 = z.enum(PROVIDER_REQUESTS);

const isoDateTime = z.iso.datetime({ offset: true });
/**
 * The creation horizon of a list walk: the orchestrator's PostgreSQL snapshot at the first page
 * (`xmin:xmax:xip,…`, pg_snapshot text). Opaque to the gateway, which only signs it into the cursor.
 */
export const syncListHorizonV1 = z
  .string()
  .max(4096)
  .regex(/^\d+:\d+:(\d+(,\d+)*)?$/);

/** The public Sync (spec 2.11). */
export const syncRecordV1 = z
  .object({
    id: syncIdSchema.meta({ example: 'sync_01JD3Y7Q8ZK5V2N4R6T8W0X2Y4' }),
    status: syncStatusV1.describe('requested → in_progress → completed; any open state → failed (also by cancel); failed → requested by retry.'),
    requestedAt: wireDateTimeV1.describe('When the sync was created; the upper end of its collection interval.'),
    startFrom: wireDateTimeV1.describe('Start of the collection interval (given, derived from lookbackDays, or defaulted).'),
    completedAt: wireDateTimeV1.describe('Present once every admitted unit has a committed data receipt.').optional(),
    attempts: z.number().int().min(1).describe('1 at creation; each accepted retry adds one.'),
    progress: z.number().min(0).max(100).describe('Units with a committed data receipt / admitted units × 100, rounded down to two decimals; 100 only when completed.'),
    failureReason: z.string().min(1).describe('Why the sync failed, e.g. `cancelled` after a cancel, or a provider reason code.').optional(),
    issues: z.array(z.string()).max(0).describe('Always empty in this increment.'),
    providerRequests: z.array(providerRequestV1).max(0).describe('Always empty: provider request workflows are not implemented.'),
  })
  .strict()
  // The public contract requires only these three (spec 2.11); the orchestrator always sends every field, which the parse above insists on.
  .meta({ id: 'Sync', description: 'A durable sync job of the connection named by the Connection-Token.', required: ['id', 'status', 'requestedAt'] });

/**
 * Who is calling, as the gateway authenticated it. `connectionToken` is the Connection-Token the
 * call came with and the application's tokenVersion the gateway read with it (application-grant.v1),
 * so the orchestrator can tell a token revoked since (401) from a token its projection has not seen
 * yet (503). Optional only so a caller of a gateway that predates the token recheck still parses;
 * the orchestrator refuses such a call as unverifiable (503), never trusts it.
 */
export const syncCallerV1 = z
  .object({
    applicationId: z.uuid(),
    connectionId: z.uuid(),
    credentialVersion: z.number().int().positive(),
    connectionToken: z.object({ id: z.uuid(), tokenVersion: z.number().int().nonnegative() }).strict().optional(),
  })
  .strict();

export const createSyncRequestV1 = z
  .object({
    caller: syncCallerV1,
    /** Explicit start of the interval; exclusive with lookbackDays (the gateway refuses both). */
    startFrom: isoDateTime.optional(),
    /** Fractional days before now; exclusive with startFrom. */
    lookbackDays: z.number().positive().optional(),
    /**
     * The provider request workflows asked for, when any (the gateway sends none for an empty
     * list). Not implemented: the orchestrator answers provider_requests_not_supported (409) once
     * every other field is validated, so a request that is also malformed gets its 400 (issue 25).
     */
    providerRequests: z.array(providerRequestV1).min(1).optional(),
  })
  .strict();

export const syncReplyV1 = z.object({ sync: syncRecordV1 }).strict();

export const syncByIdRequestV1 = z.object({ caller: syncCallerV1, syncId: z.string().min(1).max(64) }).strict();

export const listSyncsRequestV1 = z
  .object({
    caller: syncCallerV1,
    limit: z.number().int().min(1).max(100),
    status: syncStatusV1.optional(),
    /** Upper creation horizon fixed by the first page; absent on the first page. */
    horizon: syncListHorizonV1.optional(),
    /** Keyset position: the last row of the previous page (newest requestedAt first, then id). */
    after: z.object({ requestedAt: isoDateTime, id: z.string().min(1).max(64) }).strict().optional(),
  })
  .strict();

export const listSyncsReplyV1 = z
  .object({
    syncs: z.array(syncRecordV1),
    /** The horizon this page used (fixed by the first page); echo it in the cursor. */
    horizon: syncListHorizonV1,
    hasMore: z.boolean(),
  })
  .strict();

/** SyncPage: the gateway's page of syncs, with the signed cursor of the next page. */
export const syncPageV1 = z
  .object({
    syncs: z.array(syncRecordV1),
    next: nextPageField(
      `Opaque cursor of the next page. ${NEXT_CONVENTION_TEXT} Within ${SYNC_CURSOR_TTL_MS / 60_000} minutes.`,
    ),
  })
  .strict()
  .meta({ id: 'SyncPage', description: "A page of this application's syncs on the connection, newest requestedAt first, then id." });

export type SyncPageV1 = z.output<typeof syncPageV1>;
export type SyncStatusV1 = z.output<typeof syncStatusV1>;
export type SyncRecordV1 = z.output<typeof syncRecordV1>;
export type SyncCallerV1 = z.output<typeof syncCallerV1>;
export type CreateSyncRequestV1 = z.output<typeof createSyncRequestV1>;
export type ListSyncsRequestV1 = z.output<typeof listSyncsRequestV1>;
export type ListSyncsReplyV1 = z.output<typeof listSyncsReplyV1>;
