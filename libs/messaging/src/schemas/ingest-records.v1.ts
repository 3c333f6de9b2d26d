/**
 * Zod mirrors of the normalized records of `libs/domain/src/records` as they travel inside ingest
 * batches (v1). Invariant: every schema accepts exactly what the domain type allows — a `Field` is
 * either `available` with a value or `missing`/`invalid`/`unsupported` with `value: null`, so an
 * unknown value can never arrive as a zero or an empty string — and the `satisfies`-style checks
 * at the bottom fail the typecheck when a domain record and its mirror drift apart.
 */
import {
  ENGINE_STATES,
  FUEL_TYPES,
  PROVIDERS,
  TELEMETRY_METRICS,
  type DriverRecord,
  type FaultRecord,
  type FaultSnapshot,
  type GroupRecord,
  type Observation,
  type TripRecord,
  type VehicleRecord,
} from '@switchyard/domain';
import { z } from 'zod';

const isoDateTime = z.iso.datetime({ offset: true });
const provider = z.enum(PROVIDERS);
const sourceId = z.string().min(1).max(1024);

/** `Field<T>` of libs/domain/src/records/field.ts. */
export function fieldV1<T extends z.ZodType>(value: T) {
  return z.discriminatedUnion('status', [
    z.object({ status: z.literal('available'), value, source: z.string() }).strict(),
    z
      .object({ status: z.enum(['missing', 'invalid', 'unsupported']), value: z.null(), source: z.string(), reason: z.string().optional() })
      .strict(),
  ]);
}

const latLon = z.object({ latitude: z.number().min(-90).max(90), longitude: z.number().min(-180).max(180) }).strict();
const groupRef = z.object({ id: z.string().min(1), name: z.string().optional() }).strict();

export const vehicleMetadataV1 = z
  .object({
    make: fieldV1(z.string()),
    model: fieldV1(z.string()),
    year: fieldV1(z.number().int()),
    status: fieldV1(z.enum(['active', 'inactive'])),
    providerStatus: fieldV1(z.string()),
    fuelType: fieldV1(z.enum(FUEL_TYPES)),
    sourceFuelType: fieldV1(z.string()),
    createdAt: fieldV1(z.string()),
    updatedAt: fieldV1(z.string()),
    activeFrom: fieldV1(z.string()),
    activeTo: fieldV1(z.string()),
    licensePlate: fieldV1(z.string()),
    licensePlateRegion: fieldV1(z.string()),
    serialNumber: fieldV1(z.string()),
    groups: fieldV1(z.array(groupRef).readonly()),
  })
  .strict();

export const vehicleRecordV1 = z
  .object({ provider, sourceId, name: fieldV1(z.string()), vin: fieldV1(z.string()), metadata: vehicleMetadataV1, fetchedAt: isoDateTime })
  .strict();

export const driverRecordV1 = z
  .object({
    provider,
    sourceId,
    status: fieldV1(z.enum(['active', 'inactive'])),
    fields: z
      .object({
        firstName: fieldV1(z.string()),
        middleName: fieldV1(z.string()),
        lastName: fieldV1(z.string()),
        displayName: fieldV1(z.string()),
        email: fieldV1(z.string()),
        phone: fieldV1(z.string()),
        username: fieldV1(z.string()),
        licenseNumber: fieldV1(z.string()),
        licenseState: fieldV1(z.string()),
        createdAt: fieldV1(z.string()),
        updatedAt: fieldV1(z.string()),
      })
      .strict(),
    groupIds: fieldV1(z.array(z.string().min(1)).readonly()),
    fetchedAt: isoDateTime,
  })
  .strict();

export const groupRecordV1 = z
  .object({
    provider,
    sourceId,
    name: fieldV1(z.string()),
    description: fieldV1(z.string()),
    parentSourceId: z.string().min(1).nullable(),
    fetchedAt: isoDateTime,
  })
  .strict();

export const tripRecordV1 = z
  .object({
    provider,
    sourceId,
    vehicleSourceId: sourceId,
    driverSourceId: z.string().min(1).nullable(),
    startedAt: isoDateTime,
    endedAt: isoDateTime,
    durationMs: z.number().int().nonnegative(),
    distanceKm: fieldV1(z.number().nonnegative()),
    distanceBasis: z.enum(['gps', 'odometer', 'provider_reported']).nullable(),
    startLocation: fieldV1(latLon),
    endLocation: fieldV1(latLon),
    fetchedAt: isoDateTime,
  })
  .strict();

const unitConversion = z.union([
  z.object({ source: z.enum(['meters', 'kilometers', 'miles']), normalized: z.literal('meters'), factor: z.number() }).strict(),
  z.object({ source: z.enum(['seconds', 'milliseconds', 'hours']), normalized: z.literal('seconds'), factor: z.number() }).strict(),
]);

const observationBase = {
  provider,
  vehicleSourceId: sourceId,
  source: z.string().min(1),
  observedAt: isoDateTime,
  fetchedAt: isoDateTime,
  units: unitConversion.optional(),
};
const finite = z.number().finite();
const obs = <M extends (typeof TELEMETRY_METRICS)[number], V extends z.ZodType>(metric: M, value: V) =>
  z.object({ ...observationBase, metric: z.literal(metric), value }).strict();

export const observationV1 = z.discriminatedUnion('metric', [
  obs('location', latLon),
  obs('odometer', z.object({ meters: finite }).strict()),
  obs('engineHours', z.object({ seconds: finite }).strict()),
  obs('totalIdleTime', z.object({ seconds: finite }).strict()),
  obs('speed', z.object({ value: finite }).strict()),
  obs('heading', z.object({ value: finite }).strict()),
  obs('fuelPercent', z.object({ value: finite }).strict()),
  obs('batteryVoltage', z.object({ value: finite }).strict()),
  obs('engineState', z.object({ state: z.enum(ENGINE_STATES) }).strict()),
]);

const faultCode = { faultKey: z.string().min(1).max(1024), code: z.string().min(1), description: z.string().nullable(), occurrenceCount: z.number().int().min(0).optional() };

export const faultSnapshotV1 = z
  .object({
    model: z.literal('complete_snapshot'),
    provider,
    vehicleSourceId: sourceId,
    observedAt: isoDateTime,
    active: z.array(z.object(faultCode).strict()).readonly(),
    fetchedAt: isoDateTime,
  })
  .strict();

export const faultRecordV1 = z
  .object({
    ...faultCode,
    model: z.literal('explicit_records'),
    provider,
    sourceId,
    vehicleSourceId: sourceId,
    observedAt: isoDateTime,
    providerState: z.string().nullable(),
    dismissedAt: isoDateTime.nullable(),
    fetchedAt: isoDateTime,
  })
  .strict();

export type VehicleRecordV1 = z.output<typeof vehicleRecordV1>;
export type DriverRecordV1 = z.output<typeof driverRecordV1>;
export type GroupRecordV1 = z.output<typeof groupRecordV1>;
export type TripRecordV1 = z.output<typeof tripRecordV1>;
export type ObservationV1 = z.output<typeof observationV1>;
export type FaultSnapshotV1 = z.output<typeof faultSnapshotV1>;
export type FaultRecordV1 = z.output<typeof faultRecordV1>;

// Drift guards: a domain record must be assignable to its mirror's input (publishers hand domain
// records straight to `publish`). Compile-time only.
type Assignable<A, B> = A extends B ? true : never;
export const RECORD_MIRRORS_MATCH: [
  Assignable<VehicleRecord, z.input<typeof vehicleRecordV1>>,
  Assignable<DriverRecord, z.input<typeof driverRecordV1>>,
  Assignable<GroupRecord, z.input<typeof groupRecordV1>>,
  Assignable<TripRecord, z.input<typeof tripRecordV1>>,
  Assignable<Observation, z.input<typeof observationV1>>,
  Assignable<FaultSnapshot, z.input<typeof faultSnapshotV1>>,
  Assignable<FaultRecord, z.input<typeof faultRecordV1>>,
] = [true, true, true, true, true, true, true];
