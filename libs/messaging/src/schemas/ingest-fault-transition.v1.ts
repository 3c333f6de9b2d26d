/**
 * `fleet.faults.<connectionId>.<opened|cleared>` v1: one fault occurrence opening or clearing, as
 * fault-feed derived it from snapshots or explicit records. Published from fault-feed's outbox
 * after the commit, msgId = `transitionId`. Invariants: `sequence` is strictly increasing per
 * connection in commit order (a consumer that keeps the highest sequence it applied can ignore
 * replays); `bootstrap: true` marks opens found in the first observation of a vehicle (snapshots)
 * or of a connection (explicit records) — the fault was already active before Switchyard watched,
 * so `observedAt` is when we first watched (the first snapshot read, or the end of the first window
 * of records read), not when it started. Times: docs/faults.md "Times".
 */
import { vehicleIdSchema } from '@switchyard/contracts';
import { z } from 'zod';
import { providerV1 } from './connection-config.v1.js';

/**
 * The structure of a fault code where the provider's identity of the fault gives it (fault-feed
 * fault-codes.ts): J1939 SPN, FMI and source address (the transmitting ECU; null when the provider
 * names none), OBD-II DTC and its list (confirmed, pending, permanent; null when not given), Geotab
 * diagnostic, failure mode and controller ids. Null when the code has none of these structures
 * (an OEM code, another network).
 */
export const structuredFaultCodeV1 = z.discriminatedUnion('standard', [
  z.object({ standard: z.literal('j1939'), spn: z.number().int().min(0), fmi: z.number().int().min(0), sourceAddress: z.number().int().min(0).nullable(), occurrenceCount: z.number().int().min(0).optional() }).strict(),
  z.object({ standard: z.literal('obdii'), dtc: z.string().min(1), status: z.enum(['confirmed', 'pending', 'permanent']).nullable() }).strict(),
  z.object({ standard: z.literal('geotab'), diagnosticId: z.string().min(1), failureModeId: z.string().min(1).nullable(), controllerId: z.string().min(1).nullable(), occurrenceCount: z.number().int().min(0).optional() }).strict(),
]);

export type StructuredFaultCodeV1 = z.output<typeof structuredFaultCodeV1>;

export const faultTransitionV1 = z
  .object({
    transitionId: z.uuid(),
    /** Per-connection, strictly increasing, gap-free in commit order. */
    sequence: z.number().int().positive(),
    connectionId: z.uuid(),
    provider: providerV1,
    kind: z.enum(['opened', 'cleared']),
    occurrenceId: z.uuid(),
    vehicleId: vehicleIdSchema,
    vehicleSourceId: z.string().min(1),
    faultKey: z.string().min(1),
    code: z.string().min(1),
    description: z.string().nullable(),
    model: z.enum(['complete_snapshot', 'explicit_records']),
    /** opened: the first observation open (a snapshot's read, a record's time; bootstrap: when we first watched); cleared: the read no longer listing it, dismissed, or inactivity timeout. */
    observedAt: z.iso.datetime({ offset: true }),
    /** Why it cleared (null for opens). */
    clearedBy: z.enum(['snapshot_absent', 'dismissed', 'inactivity_timeout']).nullable(),
    bootstrap: z.boolean(),
    /** Added in v1 (additive): the code's structure, null when it has none; absent from messages published before. */
    structured: structuredFaultCodeV1.nullable().optional(),
  })
  .strict();

export type FaultTransitionV1 = z.output<typeof faultTransitionV1>;
