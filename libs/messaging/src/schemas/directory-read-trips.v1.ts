/**
 * `directory.read.trips.list|get` v1: gateway → directory request/reply behind
 * GET /v1/connections/{id}/trips and …/trips/{tripId} (spec 2.7, 4.2). The directory answers from
 * its own store (no provider contact) with public Trip objects; the gateway signs the keyset
 * position and horizon into `next`.
 * Invariant: `tripV1` is exactly the public Trip (no extra properties): `vehicle` is a vcl_ id or
 * an ExpandedVehicle, `driver` a drv_ id or a TripDriver, distance in km (absent when missing or
 * invalid), duration in ms. Errors: `not_found` (no such trip on this connection, or its vehicle is
 * hidden), `service_unavailable` (migrations pending), plus the bus's own codes.
 */
import { DRIVER_SOURCE_ID_PATTERN } from '@switchyard/contracts';
import { ID_PATTERNS, PROVIDERS } from '@switchyard/domain';
import { z } from 'zod';
import type { RpcDefinition } from '../port.js';
import { datasetStatusV1, expandedVehicleV1, isoDateTimeV1, readPageReplyFields, readPageRequestFields } from './directory-read.v1.js';

const tripId = z.string().regex(new RegExp(ID_PATTERNS.trip));
const vehicleId = z.string().regex(new RegExp(ID_PATTERNS.vehicle));
const driverId = z.string().regex(new RegExp(ID_PATTERNS.driver));
const latLon = z.object({ latitude: z.number().min(-90).max(90), longitude: z.number().min(-180).max(180) }).strict();
const added = z.object({ addedAt: isoDateTimeV1, modifiedAt: isoDateTimeV1 }).strict();

/** TripDriver (spec 2.7): the Driver identity fields; email, phone and license.state are plain strings here. */
export const tripDriverV1 = z
  .object({
    id: driverId,
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
    createdAt: isoDateTimeV1.optional(),
    updatedAt: isoDateTimeV1.optional(),
    license: z.object({ number: z.string().optional(), state: z.string().optional() }).strict().optional(),
    metadata: added,
  })
  .strict();

export const tripV1 = z
  .object({
    id: tripId,
    sourceId: z.string().min(1),
    provider: z.enum(PROVIDERS),
    vehicle: z.union([vehicleId, expandedVehicleV1]),
    driver: z.union([driverId, tripDriverV1]).optional(),
    startedAt: isoDateTimeV1,
    endedAt: isoDateTimeV1,
    duration: z.number().min(0),
    distance: z.number().min(0).optional(),
    startLocation: latLon.optional(),
    endLocation: latLon.optional(),
    metadata: added,
  })
  .strict();

/** Which references to expand (query `expand=vehicle,driver`). */
export const tripExpandV1 = z.object({ vehicle: z.boolean(), driver: z.boolean() }).strict();

export const tripCoverageV1 = z
  .object({
    completedUnits: z.number().int().min(0),
    selection: z.literal('completed_trips_started_in_window'),
    completeness: z.literal('not_established'),
  })
  .strict();

/** A keyset position: startedAt at full stored precision (microseconds), then the trip id. */
export const tripPositionV1 = z.object({ startedAt: isoDateTimeV1, id: tripId }).strict();

export const listTripsRequestV1 = z
  .object({
    ...readPageRequestFields,
    /** startedAt ≥ from (inclusive); absent = unbounded. */
    from: isoDateTimeV1.optional(),
    /** startedAt < to (exclusive); absent = unbounded. */
    to: isoDateTimeV1.optional(),
    vehicleIds: z.array(vehicleId).max(50),
    driverIds: z.array(driverId).max(50),
    expand: tripExpandV1,
    /** Keyset position: the last trip served (ascending startedAt, then id). */
    after: tripPositionV1.optional(),
  })
  .strict();

export const listTripsReplyV1 = z
  .object({
    ...readPageReplyFields,
    trips: z.array(tripV1).max(100),
    coverage: tripCoverageV1,
    /** Where the next page starts (the last trip served); present exactly when hasMore. */
    next: tripPositionV1.optional(),
  })
  .strict();

export const getTripRequestV1 = z.object({ connectionId: z.uuid(), tripId, expand: tripExpandV1 }).strict();
export const getTripReplyV1 = z.object({ dataset: datasetStatusV1, trip: tripV1 }).strict();

export const DIRECTORY_TRIPS_RPCS = {
  list: { subject: 'directory.read.trips.list', request: listTripsRequestV1, response: listTripsReplyV1 },
  get: { subject: 'directory.read.trips.get', request: getTripRequestV1, response: getTripReplyV1 },
} as const satisfies Record<string, RpcDefinition>;

export type TripV1 = z.output<typeof tripV1>;
export type TripDriverV1 = z.output<typeof tripDriverV1>;
export type TripExpandV1 = z.output<typeof tripExpandV1>;
export type ListTripsRequestV1 = z.output<typeof listTripsRequestV1>;
export type ListTripsReplyV1 = z.output<typeof listTripsReplyV1>;
export type TripPositionV1 = z.output<typeof tripPositionV1>;
export type GetTripRequestV1 = z.output<typeof getTripRequestV1>;
export type GetTripReplyV1 = z.output<typeof getTripReplyV1>;
