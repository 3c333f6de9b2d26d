/**
 * `sync.operator.runs` v1 (gateway → sync-orchestrator, the operator console; issue 30): a
 * connection's newest collection runs — public syncs and the scheduler's internal runs alike — each
 * with its units counted by state and its units' recent errors. Not part of the public API (the
 * console reads it under an operator session; no integrator route forwards it), so it carries no
 * OpenAPI component name.
 *
 * Unit states, each unit counted once, in this order: `receipted` (the owning context committed its
 * data), `awaitingReceipts` (its final batch is published under the current fencing token, receipts
 * pending), `collecting` (leased by a collector now), `retrying` (its last lease ended in a
 * retryable provider error; waiting for the next lease), `queued` (admitted, not yet leased).
 * Invariant: the five counts add up to `admittedUnits`; an error is the unit's last error code as
 * the collector recorded it (never a guessed one), with the number of failed leases of its attempt.
 */
import { z } from 'zod';
import { syncStatusV1 } from './sync-api.v1.js';

const isoDateTime = z.iso.datetime({ offset: true });
const count = z.number().int().nonnegative();

export const RUN_UNIT_STATES = ['queued', 'collecting', 'retrying', 'awaitingReceipts', 'receipted'] as const;

export const operatorRunUnitsV1 = z.object(Object.fromEntries(RUN_UNIT_STATES.map((s) => [s, count])) as Record<(typeof RUN_UNIT_STATES)[number], typeof count>).strict();

export const operatorRunErrorV1 = z
  .object({
    /** The unit's position in its run's plan. */
    seq: z.number().int().nonnegative(),
    purpose: z.string().min(1),
    /** The provider's vehicle id of a per-vehicle unit; null for connection-level units (drivers, groups). */
    vehicleSourceId: z.string().nullable(),
    code: z.string().min(1),
    /** Leases of the current attempt that ended in a retryable provider failure. */
    errorAttempts: count,
  })
  .strict();

export const operatorRunV1 = z
  .object({
    id: z.string().min(1).max(64),
    /** `api` (POST /v1/syncs) or the internal origin (`scheduled`). */
    origin: z.string().min(1),
    status: syncStatusV1,
    requestedAt: isoDateTime,
    startFrom: isoDateTime,
    intervalEnd: isoDateTime,
    completedAt: isoDateTime.optional(),
    failureReason: z.string().min(1).optional(),
    attempts: z.number().int().min(1),
    purposes: z.array(z.string().min(1)),
    admittedUnits: count,
    receiptedUnits: count,
    progress: z.number().min(0).max(100),
    units: operatorRunUnitsV1,
    /** Units whose last lease recorded an error, in plan order; at most `OPERATOR_RUN_ERRORS`. */
    errors: z.array(operatorRunErrorV1),
  })
  .strict();

/** Most errors listed per run (the rest are counted in `units.retrying`). */
export const OPERATOR_RUN_ERRORS = 10;

export const operatorRunsRequestV1 = z.object({ connectionId: z.uuid(), limit: z.number().int().min(1).max(50) }).strict();
export const operatorRunsReplyV1 = z.object({ runs: z.array(operatorRunV1) }).strict();

export type OperatorRunV1 = z.output<typeof operatorRunV1>;
export type OperatorRunsRequestV1 = z.output<typeof operatorRunsRequestV1>;
export type OperatorRunsReplyV1 = z.output<typeof operatorRunsReplyV1>;
