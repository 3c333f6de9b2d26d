/**
 * `events.faults.observed.<connectionId>` v1 (fault-feed → telemetry-ingest: Telemetry
 * `faultsObservedAt`): per vehicle of one committed fault batch, the time its faults were read up
 * to — a snapshot's time (our read), or for a vehicle's read of explicit records the end of its
 * window, on the read's final batch (also when it found no record; a batch without `read`: the
 * newest record) — also when nothing opened or cleared. Published after the batch committed.
 * Invariant: a consumer keeps the greatest `observedAt` per vehicle, so redelivered or reordered
 * messages change nothing; msgId `faults-observed:<batchId>`.
 */
import { vehicleIdSchema } from '@switchyard/contracts';
import { z } from 'zod';

export const faultsObservedV1 = z
  .object({
    connectionId: z.uuid(),
    /** The ingest batch the observations came from. */
    batchId: z.string().min(1),
    vehicles: z
      .array(
        z
          .object({
            vehicleId: vehicleIdSchema,
            observedAt: z.iso.datetime({ offset: true }),
          })
          .strict(),
      )
      .min(1),
  })
  .strict();

export type FaultsObservedV1 = z.output<typeof faultsObservedV1>;

/** Stable message id of one batch's observation event. */
export const faultsObservedMsgId = (batchId: string) => `faults-observed:${batchId}`;
