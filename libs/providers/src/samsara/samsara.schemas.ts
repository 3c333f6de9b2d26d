/**
 * Zod schemas of the Samsara REST responses the adapter reads (shared/providers/samsara.md, from the
 * SDK 14.7.0 types). Every object is loose: Samsara adds fields all the time and unknown keys must not
 * break a sync. What we read is checked in two strengths, on purpose:
 * - structural facts (envelopes, ids, stat point `time` and numeric `value`, trip times, tag parents)
 *   are strict — a mismatch is `provider_response_changed` for the page, because guessing there would
 *   produce wrong numbers or broken keys;
 * - descriptive attributes of vehicles and drivers (name, vin, year, phone, …) are `unknown` here and
 *   validated per field by the mapper, so one retyped attribute becomes that field's `invalid` status
 *   instead of hiding the whole roster.
 */
import { isRfc3339DateTime } from '@switchyard/domain';
import { z } from 'zod';

const rfc3339 = z.string().refine(isRfc3339DateTime, 'expected an RFC 3339 date-time');
const attr = z.unknown().optional();

export const samsaraPaginationSchema = z.looseObject({ endCursor: z.string(), hasNextPage: z.boolean() });

/** `{data: [...], pagination: {endCursor, hasNextPage}}` — every list endpoint of the current API. */
export const samsaraEnvelope = <T extends z.ZodType>(item: T) => z.looseObject({ data: z.array(item), pagination: samsaraPaginationSchema });

// ---- vehicles (§2), drivers (§3), tags (§4) ------------------------------------------------------

export const samsaraVehicleSchema = z.looseObject({
  id: z.string().min(1),
  name: attr,
  vin: attr,
  make: attr,
  model: attr,
  year: attr,
  licensePlate: attr,
  serial: attr,
  gateway: attr,
  tags: attr,
  createdAtTime: attr,
  updatedAtTime: attr,
});
export type SamsaraVehicle = z.output<typeof samsaraVehicleSchema>;

export const samsaraDriverSchema = z.looseObject({
  id: z.string().min(1),
  name: attr,
  username: attr,
  phone: attr,
  email: attr,
  licenseNumber: attr,
  licenseState: attr,
  driverActivationStatus: attr,
  isDeactivated: attr,
  tags: attr,
  createdAtTime: attr,
  updatedAtTime: attr,
});
export type SamsaraDriver = z.output<typeof samsaraDriverSchema>;

export const samsaraTagSchema = z.looseObject({
  id: z.string().min(1),
  name: attr,
  // The hierarchy hangs on it: a retyped parent would silently re-root a subtree, so it is strict.
  parentTagId: z.string().min(1).optional(),
});
export type SamsaraTag = z.output<typeof samsaraTagSchema>;

// ---- vehicle stats (§5) -----------------------------------------------------------------------------

const numberPoint = z.looseObject({ time: rfc3339, value: z.number() });
const stringPoint = z.looseObject({ time: rfc3339, value: z.string() });
const gpsPoint = z.looseObject({
  time: rfc3339,
  latitude: z.number(),
  longitude: z.number(),
  headingDegrees: z.number().optional(),
  speedMilesPerHour: z.number().optional(),
  isEcuSpeed: z.boolean().optional(),
});
export type SamsaraGpsPoint = z.output<typeof gpsPoint>;
export type SamsaraNumberPoint = z.output<typeof numberPoint>;
export type SamsaraStringPoint = z.output<typeof stringPoint>;

const j1939Dtc = z.looseObject({
  spnId: z.number().int(),
  fmiId: z.number().int(),
  txId: z.number().int().optional(),
  spnDescription: z.string().optional(),
  fmiDescription: z.string().optional(),
  occurrenceCount: z.number().optional(),
});
const obdDtc = z.looseObject({ dtcId: z.number().int().optional(), dtcShortCode: z.string().optional(), dtcDescription: z.string().optional() });
const obdDtcGroup = z.looseObject({
  txId: z.number().int().optional(),
  confirmedDtcs: z.array(obdDtc).optional(),
  pendingDtcs: z.array(obdDtc).optional(),
  permanentDtcs: z.array(obdDtc).optional(),
});
// Every field optional, as in Samsara's SDK (VehicleStatsFaultCodesOemTroubleCode): a code without
// an identifier must not fail the page (quirk S1 in docs/providers.md).
const oemDtc = z.looseObject({ codeIdentifier: z.string().optional(), codeDescription: z.string().optional(), codeSeverity: z.string().optional(), codeSource: z.string().optional() });

export const samsaraFaultCodesPointSchema = z.looseObject({
  time: rfc3339,
  canBusType: z.string().optional(),
  j1939: z.looseObject({ diagnosticTroubleCodes: z.array(j1939Dtc).optional() }).optional(),
  obdii: z.looseObject({ diagnosticTroubleCodes: z.array(obdDtcGroup).optional() }).optional(),
  oem: z.looseObject({ diagnosticTroubleCodes: z.array(oemDtc).optional() }).optional(),
});
export type SamsaraFaultCodesPoint = z.output<typeof samsaraFaultCodesPointSchema>;

/** Numeric stats with identical keys in snapshot and feed/history (§5.2). */
export const SAMSARA_NUMERIC_STATS = [
  'obdOdometerMeters',
  'gpsOdometerMeters',
  'obdEngineSeconds',
  'syntheticEngineSeconds',
  'idlingDurationMilliseconds',
  'batteryMilliVolts',
] as const;
export type SamsaraNumericStat = (typeof SAMSARA_NUMERIC_STATS)[number];

const numericStats = <S extends z.ZodType>(shape: S) =>
  Object.fromEntries(SAMSARA_NUMERIC_STATS.map((k) => [k, shape.optional()])) as Record<SamsaraNumericStat, z.ZodOptional<S>>;

/**
 * Snapshot item (`GET /fleet/vehicles/stats`): one point per stat, and the three singular keys
 * `engineState` / `fuelPercent` (quirk 1). `faultCodes` is documented as one object; an array is
 * accepted too because the reference's only example of it is list-shaped (unconfirmed).
 */
export const samsaraStatsSnapshotItemSchema = z.looseObject({
  id: z.string().min(1),
  name: z.string().optional(),
  gps: gpsPoint.optional(),
  engineState: stringPoint.optional(),
  fuelPercent: numberPoint.optional(),
  faultCodes: z.union([samsaraFaultCodesPointSchema, z.array(samsaraFaultCodesPointSchema)]).optional(),
  ...numericStats(numberPoint),
});
export type SamsaraStatsSnapshotItem = z.output<typeof samsaraStatsSnapshotItemSchema>;

/** Feed / history item: arrays of points under the plural keys `engineStates` / `fuelPercents`. */
export const samsaraStatsSeriesItemSchema = z.looseObject({
  id: z.string().min(1),
  name: z.string().optional(),
  gps: z.array(gpsPoint).optional(),
  engineStates: z.array(stringPoint).optional(),
  fuelPercents: z.array(numberPoint).optional(),
  faultCodes: z.array(samsaraFaultCodesPointSchema).optional(),
  ...numericStats(z.array(numberPoint)),
});
export type SamsaraStatsSeriesItem = z.output<typeof samsaraStatsSeriesItemSchema>;

// ---- trips (§6) ----------------------------------------------------------------------------------

const tripLocation = z.looseObject({ latitude: z.number(), longitude: z.number(), headingDegrees: z.number().optional() });

export const samsaraStreamTripSchema = z.looseObject({
  asset: z.looseObject({ id: z.string().min(1) }),
  completionStatus: z.string(),
  tripStartTime: rfc3339,
  tripEndTime: rfc3339.optional(),
  updatedAtTime: rfc3339.optional(),
  // Required in the SDK; optional here so one trip without it keeps its other fields (location → missing).
  startLocation: tripLocation.optional(),
  endLocation: tripLocation.optional(),
});
export type SamsaraStreamTrip = z.output<typeof samsaraStreamTripSchema>;

const coordinates = z.looseObject({ latitude: z.number(), longitude: z.number() });

/** Legacy `GET /v1/fleet/trips`: `{trips: [...]}`, no pagination, epoch-ms times, int ids (§6.2). */
export const samsaraLegacyTripSchema = z.looseObject({
  // 9223372036854775807 (ongoing) does not survive JSON.parse exactly; any number is accepted and
  // values beyond Number.MAX_SAFE_INTEGER are read as "ongoing" by the mapper.
  startMs: z.number(),
  endMs: z.number(),
  distanceMeters: z.number().optional(),
  driverId: z.number().int().optional(),
  startOdometer: z.number().optional(),
  endOdometer: z.number().optional(),
  startCoordinates: coordinates.optional(),
  endCoordinates: coordinates.optional(),
});
export type SamsaraLegacyTrip = z.output<typeof samsaraLegacyTripSchema>;
export const samsaraLegacyTripsResponseSchema = z.looseObject({ trips: z.array(samsaraLegacyTripSchema) });
