/**
 * zod schemas of the MyGeotab JSON-RPC payloads the adapter reads (shared/providers/geotab.md).
 *
 * Invariant: tolerant of what we do not read (unknown keys are stripped, never rejected), strict
 * about what we do: a field we read that arrives with another type fails the parse and becomes
 * `provider_response_changed`; a field we read that is absent or null parses as undefined/null and
 * the mapper reports it `missing`. Identity fields (`id`, `dateTime`, `device`) are required.
 * Every entity reference accepts both forms Geotab sends: `{id}` objects and bare strings
 * (`"UnknownDriverId"`, `"NoFailureModeId"`, `"ControllerNoneId"`).
 */
import { isRfc3339DateTime } from '@switchyard/domain';
import { z } from 'zod';

/** `{id: "b3"}` or the bare-string form; both normalize to the id string. */
export const geotabRefSchema = z.union([z.string(), z.looseObject({ id: z.string() })]).transform((ref) => (typeof ref === 'string' ? ref : ref.id));
export type GeotabRef = z.output<typeof geotabRefSchema>;

const optionalString = z.string().nullish();
/** The time an event record cannot exist without: a record with an unreadable one is skipped (parseGeotabRows), not dropped unseen. */
const eventTime = z.string().refine(isRfc3339DateTime, 'expected an RFC 3339 date-time');
const optionalNumber = z.number().nullish();
const refList = z.array(geotabRefSchema).nullish();

// ---- Envelopes ---------------------------------------------------------------------------------

/** The error member of an HTTP-200 (or 429) JSON-RPC failure. `data.type` is the key we switch on. */
export const geotabErrorSchema = z.looseObject({
  code: z.number().nullish(),
  name: optionalString,
  message: optionalString,
  data: z.looseObject({ type: optionalString, retryAfter: z.union([z.number(), z.string()]).nullish() }).nullish(),
  errors: z.array(z.looseObject({ name: optionalString, message: optionalString })).nullish(),
});
export type GeotabErrorBody = z.output<typeof geotabErrorSchema>;

/** Either `{result}` or `{error}`; anything else is not MyGeotab speaking. */
export const geotabEnvelopeSchema = z.union([
  z.looseObject({ error: geotabErrorSchema }).transform((v) => ({ kind: 'error' as const, error: v.error })),
  z
    .looseObject({ result: z.unknown() })
    .refine((v) => 'result' in v, 'result or error required')
    .transform((v) => ({ kind: 'result' as const, result: v.result })),
]);

export const authenticateResultSchema = z.looseObject({
  credentials: z.looseObject({ database: z.string(), sessionId: z.string().min(1), userName: z.string() }),
  /** "ThisServer", or the host that holds the database (e.g. "my512.geotab.com"). */
  path: z.string().min(1),
});

/** GetFeed result: `toVersion` is the opaque resume token (16 hex digits in practice). */
export function feedResultSchema<T extends z.ZodType>(item: T) {
  return z.looseObject({ data: z.array(item), toVersion: z.string().min(1) });
}

// ---- Entities ----------------------------------------------------------------------------------

export const deviceSchema = z.looseObject({
  id: z.string().min(1),
  name: optionalString,
  serialNumber: optionalString,
  deviceType: optionalString,
  vehicleIdentificationNumber: optionalString,
  engineVehicleIdentificationNumber: optionalString,
  licensePlate: optionalString,
  licenseState: optionalString,
  groups: refList,
  activeFrom: optionalString,
  activeTo: optionalString,
  version: optionalString,
});
export type GeotabDevice = z.output<typeof deviceSchema>;

export const userSchema = z.looseObject({
  id: z.string().min(1),
  name: optionalString,
  firstName: optionalString,
  lastName: optionalString,
  isDriver: z.boolean().nullish(),
  employeeNo: optionalString,
  phoneNumber: optionalString,
  licenseNumber: optionalString,
  licenseProvince: optionalString,
  driverGroups: refList,
  companyGroups: refList,
  activeFrom: optionalString,
  activeTo: optionalString,
});
export type GeotabUser = z.output<typeof userSchema>;

export const groupSchema = z.looseObject({
  id: z.string().min(1),
  name: optionalString,
  comments: optionalString,
  reference: optionalString,
  children: refList,
  parent: geotabRefSchema.nullish(),
});
export type GeotabGroup = z.output<typeof groupSchema>;

export const coordinateSchema = z.looseObject({ x: z.number(), y: z.number() });

export const tripSchema = z.looseObject({
  id: z.string().min(1),
  device: geotabRefSchema,
  driver: geotabRefSchema.nullish(),
  start: eventTime,
  stop: eventTime,
  nextTripStart: optionalString,
  distance: optionalNumber,
  drivingDuration: optionalString,
  idlingDuration: optionalString,
  stopPoint: coordinateSchema.nullish(),
  odometer: optionalNumber,
  engineHours: optionalNumber,
  version: optionalString,
});
export type GeotabTrip = z.output<typeof tripSchema>;

export const logRecordSchema = z.looseObject({
  id: optionalString,
  dateTime: z.string(),
  device: geotabRefSchema,
  latitude: optionalNumber,
  longitude: optionalNumber,
  speed: optionalNumber,
});
export type GeotabLogRecord = z.output<typeof logRecordSchema>;

export const statusDataSchema = z.looseObject({
  id: optionalString,
  dateTime: z.string(),
  device: geotabRefSchema,
  diagnostic: geotabRefSchema,
  data: optionalNumber,
  controller: geotabRefSchema.nullish(),
  version: optionalString,
});
export type GeotabStatusData = z.output<typeof statusDataSchema>;

export const deviceStatusInfoSchema = z.looseObject({
  device: geotabRefSchema,
  driver: geotabRefSchema.nullish(),
  dateTime: z.string(),
  latitude: optionalNumber,
  longitude: optionalNumber,
  speed: optionalNumber,
  bearing: optionalNumber,
  isDriving: z.boolean().nullish(),
  isDeviceCommunicating: z.boolean().nullish(),
  currentStateDuration: optionalString,
  groups: refList,
});
export type GeotabDeviceStatusInfo = z.output<typeof deviceStatusInfoSchema>;

export const faultDataSchema = z.looseObject({
  id: z.string().min(1),
  dateTime: eventTime,
  device: geotabRefSchema,
  diagnostic: geotabRefSchema,
  failureMode: geotabRefSchema.nullish(),
  controller: geotabRefSchema.nullish(),
  faultState: optionalString,
  // Newer servers (unconfirmed shape): {"effectiveStatus": "Active"}.
  faultStates: z.looseObject({ effectiveStatus: optionalString }).nullish(),
  faultLampState: optionalString,
  malfunctionLamp: z.boolean().nullish(),
  amberWarningLamp: z.boolean().nullish(),
  redStopLamp: z.boolean().nullish(),
  protectWarningLamp: z.boolean().nullish(),
  count: optionalNumber,
  dismissDateTime: optionalString,
  dismissUser: geotabRefSchema.nullish(),
  faultDescription: optionalString,
});
export type GeotabFaultData = z.output<typeof faultDataSchema>;

/** Diagnostic `code` is the SPN / DTC number; some servers send it as a string (unconfirmed), accept both. */
export const diagnosticSchema = z.looseObject({
  id: z.string().min(1),
  name: optionalString,
  code: z.union([z.number(), z.string()]).nullish(),
  diagnosticType: optionalString,
  source: geotabRefSchema.nullish(),
  unitOfMeasure: geotabRefSchema.nullish(),
});
export type GeotabDiagnostic = z.output<typeof diagnosticSchema>;

export const failureModeSchema = z.looseObject({
  id: z.string().min(1),
  name: optionalString,
  code: z.union([z.number(), z.string()]).nullish(),
});
export type GeotabFailureMode = z.output<typeof failureModeSchema>;

// ---- Well-known ids ----------------------------------------------------------------------------

/** KnownId diagnostics we read; `data` is in the diagnostic's SI unit (geotab.md §6.3). */
export const GEOTAB_DIAGNOSTICS = {
  odometer: 'DiagnosticOdometerId', // metres
  engineHours: 'DiagnosticEngineHoursId', // seconds
  fuelLevel: 'DiagnosticFuelLevelId', // percent
  voltage: 'DiagnosticGoDeviceVoltageId', // volts
  ignition: 'DiagnosticIgnitionId', // 1 on, 0 off
} as const;

/** "None" references Geotab sends as bare strings. */
export const GEOTAB_NONE_IDS = new Set(['UnknownDriverId', 'NoDriverId', 'NoDeviceId', 'NoDiagnosticId', 'NoFailureModeId', 'NoUserId', 'ControllerNoneId']);

export const GEOTAB_COMPANY_GROUP_ID = 'GroupCompanyId';
