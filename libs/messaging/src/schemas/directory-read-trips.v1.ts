/**
 * `directory.read.trips.list|get` v1: gateway → directory request/reply behind
 * GET /v1/connections/{id}/trips and …/trips/{tripId} (spec 2.7, 4.2). The directory answers from
 * its own store (no provider contact) with public Trip objects; the gateway signs the keyset
 * position and horizon into `next`.
 * Invariant: `tripV1` is exactly the public Trip (no extra properties): `vehicle` is a vcl_ id or
 * an ExpandedVehicle, `driver` a drv_ id or a TripDriver, distance in km (absent when missing or
 * invalid), duration in ms. Errors: `not_found` (no such trip on this connection, or its vehicle is
 * hidden), `service_unavailable` (migrations pending), plus the bus's own codes.
 * `tripPageV1` is the public TripPage the gateway builds from a list reply (adds the signed `next`).
 */
import { DRIVER_SOURCE_ID_PATTERN, driverIdSchema, tripIdSchema, vehicleIdSchema } from '@switchyard/contracts';
import { PROVIDERS } from '@switchyard/domain';
import { z } from 'zod';
import { framedReply } from '../framed-reply.js';
import {
  addedModifiedFields,
  datasetErrorCodeV1,
  datasetTimeV1,
  expandedVehicleV1,
  isoDateTimeV1,
  nextCursorV1,
  readPageReplyFields,
  readPageRequestFields,
  storedRetrievalV1,
  wireDateTimeV1,
} from './directory-read.v1.js';

const latLon = z.object({ latitude: z.number().min(-90).max(90), longitude: z.number().min(-180).max(180) }).strict();
const added = z.object(addedModifiedFields('record')).strict();

/** TripDriver (spec 2.7): the Driver identity fields; email, phone and license.state are plain strings here. */
export const tripDriverV1 = z
  .object({
    id: driverIdSchema,
    sourceId: z.string().regex(new RegExp(DRIVER_SOURCE_ID_PATTERN)),
    provider: z.enum(PROVIDERS),
    status: z.enum(['active', 'inactive']),
    firstName: z.string().optional(),
    middleName: z.string().optional(),
    lastName: z.string().optional(),
    displayName: z.string().optional(),
    email: z.string().optional(),
    phone: z.string().optional(),
    username: z.string().optional(),
    createdAt: wireDateTimeV1.optional(),
    updatedAt: wireDateTimeV1.optional(),
    license: z.object({ number: z.string().optional(), state: z.string().optional() }).strict().optional(),
    metadata: added,
  })
  .strict()
  .meta({ id: 'TripDriver', description: 'The driver of a trip (spec 2.7): Driver identity fields; email, phone and license.state are plain strings here.' });

export const tripV1 = z
  .object({
    id: tripIdSchema,
    sourceId: z.string().min(1).describe("The provider's trip id (Samsara has none: vehicle id and start time)."),
    provider: z.enum(PROVIDERS),
    vehicle: z
      .union([vehicleIdSchema, expandedVehicleV1])
      .describe('The vehicle id, or with `expand=vehicle` the stored vehicle (the id when the vehicle is not stored yet or has no known status).'),
    driver: z
      .union([driverIdSchema, tripDriverV1])
      .describe('The driver id, or with `expand=driver` the stored driver (the id when not stored yet). Absent when the provider did not identify a driver.')
      .optional(),
    startedAt: wireDateTimeV1,
    endedAt: wireDateTimeV1,
    duration: z.number().min(0).describe('Milliseconds of source-reported driving duration or elapsed motion interval.'),
    distance: z
      .number()
      .min(0)
      .describe(
        'Kilometers; absent when missing or invalid (never 0 for unknown). GPS distance and odometer difference are distinct bases and are never mixed: each trip records its basis in the store (Samsara: odometer difference when both odometer readings are valid, else GPS distance; Geotab: the distance Geotab reports, else odometer difference; Motive: odometer difference (end minus start kilometers)). The Trip schema allows no extra property, so the basis is not part of the response.',
      )
      .optional(),
    startLocation: latLon.describe('Where the trip started; absent when the provider did not report it.').optional(),
    endLocation: latLon.describe('Where the trip ended; absent when the provider did not report it.').optional(),
    metadata: added,
  })
  .strict()
  .meta({ id: 'Trip', description: 'One completed trip (spec 2.7).' });

/** Which references to expand (query `expand=vehicle,driver`). */
export const tripExpandV1 = z.object({ vehicle: z.boolean(), driver: z.boolean() }).strict();

export const tripCoverageV1 = z
  .object({
    completedUnits: z.number().int().min(0).describe('Trip collection units (one vehicle × one day of a sync) whose final page has been committed for the connection.'),
    selection: z.literal('completed_trips_started_in_window'),
    completeness: z.literal('not_established'),
  })
  .strict();

/** A keyset position: startedAt at full stored precision (microseconds), then the trip id. */
export const tripPositionV1 = z.object({ startedAt: isoDateTimeV1, id: tripIdSchema }).strict();

export const listTripsRequestV1 = z
  .object({
    ...readPageRequestFields,
    /** startedAt ≥ from (inclusive); absent = unbounded. */
    from: isoDateTimeV1.optional(),
    /** startedAt < to (exclusive); absent = unbounded. */
    to: isoDateTimeV1.optional(),
    vehicleIds: z.array(vehicleIdSchema).max(50),
    driverIds: z.array(driverIdSchema).max(50),
    expand: tripExpandV1,
    /** Keyset position: the last trip served (ascending startedAt, then id). */
    after: tripPositionV1.optional(),
  })
  .strict();

/** A framed reply (framed-reply.ts): the walk, dataset and coverage in `meta`, the Trip array as JSON text in `body`. */
export const listTripsReplyV1 = framedReply(
  z
    .object({
      ...readPageReplyFields,
      coverage: tripCoverageV1,
      /** Where the next page starts (the last trip served); present exactly when hasMore. */
      next: tripPositionV1.optional(),
    })
    .strict(),
);

/** A TripPage has no `stale`: the directory reports its trips `available` and publishedAt says how old. */
export const TRIP_PAGE_STATUSES = ['pending', 'available', 'degraded'] as const;

/** The public TripPage (spec 2.7): the gateway's answer to a list reply. */
export const tripPageV1 = z
  .object({
    status: z
      .enum(TRIP_PAGE_STATUSES)
      .describe(
        '`pending`: no trips committed for the connection yet. `available`: stored trips are served (publishedAt tells their age). `degraded`: the newest collection attempt of this dataset (its provider fetch) failed (see errorCode); stored trips are still served.',
      ),
    retrieval: storedRetrievalV1(),
    results: z.array(tripV1).max(100),
    next: nextCursorV1('page of trips').optional(),
    coverage: tripCoverageV1,
    publishedAt: datasetTimeV1('publishedAt'),
    errorCode: datasetErrorCodeV1(),
  })
  .strict()
  .meta({ id: 'TripPage', description: 'A page of stored completed trips of the connection, ascending startedAt then id; at most 100 and at most 4,194,304 bytes per response.' });

export const getTripRequestV1 = z.object({ connectionId: z.uuid(), tripId: tripIdSchema, expand: tripExpandV1 }).strict();
/** A framed reply: the Trip as JSON text. */
export const getTripReplyV1 = framedReply(z.object({}).strict());


export type TripV1 = z.output<typeof tripV1>;
export type TripPageV1 = z.output<typeof tripPageV1>;
export type TripDriverV1 = z.output<typeof tripDriverV1>;
export type TripExpandV1 = z.output<typeof tripExpandV1>;
export type ListTripsRequestV1 = z.output<typeof listTripsRequestV1>;
export type ListTripsReplyV1 = z.output<typeof listTripsReplyV1>;
export type TripPositionV1 = z.output<typeof tripPositionV1>;
export type GetTripRequestV1 = z.output<typeof getTripRequestV1>;
export type GetTripReplyV1 = z.output<typeof getTripReplyV1>;
