/**
 * `sync.collection.refresh` v1 (gateway → sync-orchestrator): contact the provider now for one
 * vehicle's latest readings (spec 4.4 refresh), through the orchestrator's adapters and the
 * account's shared request budget. The orchestrator claims the asset's refresh slot (once per
 * asset per `REFRESH_MIN_INTERVAL_S`, state in its PostgreSQL schema so every gateway and
 * orchestrator process sees one limit), asks the provider, publishes what came back on
 * `ingest.telemetry.<connectionId>` as an ordinary observations batch (no sync: no receipt; the
 * batch ledger makes it idempotent), and answers with the readings so the gateway can overlay them
 * on the stored telemetry before the batch commits.
 *
 * Outcomes: `rate_limited` (nothing asked; `retryAfterSeconds` until the slot frees), `fetched`
 * (an odometer came back), `no_new_odometer` (the provider answered without an odometer for the
 * vehicle), `failed` (the core read failed; `failureReason` is the provider error code). A failure
 * of the optional (extended) metrics never fails the refresh: they are named in `optionalFailure`;
 * `failedMetrics` lists every metric whose provider call failed.
 * An unknown, unapproved or disconnected vehicle/connection is the RpcError `not_found`.
 */
import { REFRESH_MIN_INTERVAL_S, vehicleIdSchema } from '@switchyard/contracts';
import { TELEMETRY_METRICS } from '@switchyard/domain';
import { z } from 'zod';
import { observationV1 } from './ingest-records.v1.js';


export const refreshVehicleRequestV1 = z
  .object({
    connectionId: z.uuid(),
    /** The directory's `vcl_` id (the orchestrator matches it among the connection's approved vehicles). */
    vehicleId: vehicleIdSchema,
  })
  .strict();

const reasonCode = z.string().regex(/^[a-z][a-z0-9_]{0,63}$/);

export const refreshVehicleReplyV1 = z.discriminatedUnion('outcome', [
  z.object({ outcome: z.literal('rate_limited'), retryAfterSeconds: z.number().int().min(1).max(REFRESH_MIN_INTERVAL_S) }).strict(),
  z
    .object({
      outcome: z.enum(['fetched', 'no_new_odometer', 'failed']),
      /** The provider error code when `failed`, else null. */
      failureReason: reasonCode.nullable(),
      /** The extended metrics' read failed (code); the core outcome is unaffected. Null when it did not fail or was not asked. */
      optionalFailure: reasonCode.nullable(),
      /** When the provider was asked (null when it was not: failed before the call). */
      fetchedAt: z.iso.datetime({ offset: true }).nullable(),
      /** The vehicle's readings that came back (already published for storage). */
      observations: z.array(observationV1).max(200),
      /** Metrics asked of the provider in a call that failed (their stored readings are served as fallbacks). */
      failedMetrics: z.array(z.enum(TELEMETRY_METRICS)),
    })
    .strict(),
]);

export type RefreshVehicleRequestV1 = z.output<typeof refreshVehicleRequestV1>;
export type RefreshVehicleReplyV1 = z.output<typeof refreshVehicleReplyV1>;
