/**
 * `events.vehicle.visibility.<connectionId>` v1 (directory → every context that shows vehicle
 * data): the set of the connection's stored vehicles that its include/exclude lists and status
 * filter hide (libs/domain vehicleVisibility, the one rule), published whenever that set changes —
 * after a configuration change or a vehicles batch. Each message is the whole set, not a delta, so
 * a consumer keeps the one with the highest `sequence` per connection and may drop the rest
 * (redelivery and reordering are harmless).
 * Invariant: a vehicle listed in `hidden` is hidden; without a status filter every other vehicle is
 * visible, with one (`shown` present) only the vehicles `shown` lists are.
 */
import { vehicleIdSchema } from '@switchyard/contracts';
import { VEHICLE_VISIBILITIES } from '@switchyard/domain';
import { z } from 'zod';

export const vehicleVisibilityChangedV1 = z
  .object({
    connectionId: z.uuid(),
    /** Decimal text of a positive integer, increasing per connection with every change of the set. */
    sequence: z.string().regex(/^[1-9]\d{0,18}$/),
    /** Revision of the connection configuration the set was computed with; null before the directory holds one. */
    configRevision: z.number().int().min(0).nullable(),
    computedAt: z.iso.datetime({ offset: true }),
    hidden: z.array(
      z
        .object({
          vehicleId: vehicleIdSchema,
          sourceId: z.string().min(1),
          visibility: z.enum(VEHICLE_VISIBILITIES.filter((v) => v !== 'visible') as ['hidden_by_include_list', 'hidden_by_exclude_list', 'hidden_by_status']),
        })
        .strict(),
    ),
    /**
     * Present when the rules filter by status (decision 0029): the stored vehicles the rules show.
     * A vehicle in neither list is one the directory has not stored — its status is unknown, so the
     * status filter hides it. Absent: no status filter (or a directory from before the field).
     */
    shown: z.array(vehicleIdSchema).optional(),
  })
  .strict();

export type VehicleVisibilityChangedV1 = z.output<typeof vehicleVisibilityChangedV1>;
