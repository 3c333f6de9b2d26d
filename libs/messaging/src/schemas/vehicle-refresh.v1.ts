/**
 * `sync.collection.refresh` v1 (gateway → sync-orchestrator): the whole refresh route (spec 4.4)
 * in one request from the gateway (issue 24 item 9, decision 0019). The orchestrator asks
 * telemetry-ingest's stored read first (its 404 rule: approved or stored, visible — decision
 * 0029), claims the asset's refresh slot (once per asset per `REFRESH_MIN_INTERVAL_S`, state in
 * its PostgreSQL schema so every gateway and orchestrator process sees one limit), asks the
 * provider through its adapters and the account's shared request budget (the credentials stay
 * sealed to the collector, decision 0024), publishes what came back on
 * `ingest.telemetry.<connectionId>` as an ordinary observations batch (no sync: no receipt; the
 * batch ledger makes it idempotent), and answers with telemetry-ingest's read with those readings
 * laid over the stored ones (they may not be committed yet).
 *
 * Replies (framed): `rate_limited` (nothing asked; `retryAfterSeconds` until the slot frees), or
 * `answered` with the public Telemetry body, `refreshStatus` set (`fetched`, `no_new_odometer`,
 * `failed`), the bytes telemetry-ingest produced.
 * An unknown, unapproved, hidden or disconnected vehicle/connection is the RpcError `not_found`.
 */
import { REFRESH_MIN_INTERVAL_S, vehicleIdSchema } from '@switchyard/contracts';
import { z } from 'zod';
import { framedReply } from '../framed-reply.js';

export const refreshVehicleRequestV1 = z
  .object({
    connectionId: z.uuid(),
    /** The directory's `vcl_` id (the orchestrator matches it among the connection's approved vehicles). */
    vehicleId: vehicleIdSchema,
  })
  .strict();

/**
 * A framed reply (framed-reply.ts): `rate_limited` with an empty body, or `answered` with the
 * route's 200 body as telemetry-ingest rendered it (`refreshStatus` set), forwarded as bytes.
 */
export const refreshVehicleReplyV1 = framedReply(
  z.discriminatedUnion('outcome', [
    z.object({ outcome: z.literal('rate_limited'), retryAfterSeconds: z.number().int().min(1).max(REFRESH_MIN_INTERVAL_S) }).strict(),
    z.object({ outcome: z.literal('answered') }).strict(),
  ]),
);

export type RefreshVehicleRequestV1 = z.output<typeof refreshVehicleRequestV1>;
export type RefreshVehicleReplyV1 = z.output<typeof refreshVehicleReplyV1>;
