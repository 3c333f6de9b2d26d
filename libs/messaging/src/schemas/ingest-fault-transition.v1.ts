/**
 * `fleet.faults.<connectionId>.<opened|cleared>` v1: one fault occurrence opening or clearing, as
 * fault-feed derived it from snapshots or explicit records. Published from fault-feed's outbox
 * after the commit, msgId = `transitionId`. Invariants: `sequence` is strictly increasing per
 * connection in commit order (a consumer that keeps the highest sequence it applied can ignore
 * replays); `bootstrap: true` marks opens found in the first observation of a vehicle (snapshots)
 * or of a connection (explicit records) — the fault was already active before Switchyard watched,
 * so `observedAt` is when it was first seen, not when it started.
 */
import { z } from 'zod';
import { providerV1 } from './connection-config.v1.js';

export const faultTransitionV1 = z
  .object({
    transitionId: z.uuid(),
    /** Per-connection, strictly increasing, gap-free in commit order. */
    sequence: z.number().int().positive(),
    connectionId: z.uuid(),
    provider: providerV1,
    kind: z.enum(['opened', 'cleared']),
    occurrenceId: z.uuid(),
    vehicleId: z.string().regex(/^vcl_[0-7][0-9A-HJKMNP-TV-Z]{25}$/),
    vehicleSourceId: z.string().min(1),
    faultKey: z.string().min(1),
    code: z.string().min(1),
    description: z.string().nullable(),
    model: z.enum(['complete_snapshot', 'explicit_records']),
    /** opened: first seen; cleared: absent from the next snapshot, dismissed, or inactivity timeout. */
    observedAt: z.iso.datetime({ offset: true }),
    /** Why it cleared (null for opens). */
    clearedBy: z.enum(['snapshot_absent', 'dismissed', 'inactivity_timeout']).nullable(),
    bootstrap: z.boolean(),
  })
  .strict();

export type FaultTransitionV1 = z.output<typeof faultTransitionV1>;
