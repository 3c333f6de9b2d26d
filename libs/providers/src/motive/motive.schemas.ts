/**
 * Zod schemas of the Motive responses the adapter reads (shared/providers/motive.md §1-7).
 *
 * Two levels of strictness, on purpose:
 * - Structure is strict: the double-wrapped envelope (`{vehicles:[{vehicle:{…}}]}`), integer record
 *   ids, `pagination {per_page, page_no, total}` and the times a record cannot exist without. The
 *   envelope is checked as a whole (a mismatch is `provider_response_changed`); each record one by
 *   one (parseMotiveList): a malformed record is skipped with a reason, the page still succeeds,
 *   unless every record on it fails the same way (Motive changed its API).
 * - Value fields are `wire(...)` cells: absent/null, a value of the expected type, or `retyped`. A
 *   retyped value (say `year` sent as a number) makes that one field `invalid` in the mapper instead
 *   of failing the whole page; the record's other fields stay usable.
 * Unknown keys are dropped (z.object strips), so additions on Motive's side never break parsing.
 */
import { z } from 'zod';
import type { SkippedRecord } from '../adapter.js';
import { idAt, parseProviderResponse, parseRecords } from '../http/parse.js';

/** One value field as read off the wire. */
export type Wire<T> = { readonly kind: 'value'; readonly value: T } | { readonly kind: 'absent' } | { readonly kind: 'retyped'; readonly got: string };

function describe(raw: unknown): string {
  return Array.isArray(raw) ? 'array' : typeof raw;
}

/** A value field: absent and null are both "not reported"; anything not matching `schema` is `retyped`. */
export function wire<S extends z.ZodType>(schema: S) {
  return z
    .unknown()
    .optional()
    .transform((raw): Wire<z.output<S>> => {
      if (raw === undefined || raw === null) return { kind: 'absent' };
      const parsed = schema.safeParse(raw);
      return parsed.success ? { kind: 'value', value: parsed.data } : { kind: 'retyped', got: describe(raw) };
    });
}

const str = () => wire(z.string());
const num = () => wire(z.number());
/** Motive ids are integers (motive.md §1 "IDs"); v3 location ids are UUID strings. */
const id = z.number().int().nonnegative();

export const paginationSchema = z.object({
  per_page: z.number().int().positive(),
  page_no: z.number().int().positive(),
  total: z.number().int().nonnegative(),
});
export type MotivePagination = z.output<typeof paginationSchema>;

export interface ListPage<T> {
  readonly items: readonly T[];
  readonly pagination: MotivePagination | undefined;
  /** Entries that failed their schema, with the reason (the rest of the page is in `items`). */
  readonly skipped: readonly SkippedRecord[];
  /** Entries on the page, valid or not (paging decisions count these, not `items`). */
  readonly read: number;
}

/** A list endpoint's shape: `{<plural>: [{<singular>: item}], pagination}`. */
export interface MotiveList<T> {
  readonly plural: string;
  readonly singular: string;
  readonly item: z.ZodType<T>;
  /** `pagination` is required for list endpoints (termination is driven by `total`), optional for v3 history (unconfirmed, motive.md §5.2). */
  readonly paginated: boolean;
  /** Whose id a skipped entry reports; the record's own id (`idAt(singular)`) unless said otherwise. */
  readonly idOf?: (raw: unknown) => string | null;
}

export function listEnvelope<T>(plural: string, singular: string, item: z.ZodType<T>, paginated = true, idOf?: (raw: unknown) => string | null): MotiveList<T> {
  return { plural, singular, item, paginated, ...(idOf ? { idOf } : {}) };
}

/**
 * A list body → `{items, pagination, skipped}`. The envelope (the plural key holding an array, the
 * pagination object) is checked as a whole; each entry — the `{<singular>: {…}}` wrapper included —
 * one by one (parseRecords): a malformed entry is skipped with its id and path, and only a page whose
 * every entry fails is `provider_response_changed`.
 */
export function parseMotiveList<T>(list: MotiveList<T>, json: unknown, path: string): ListPage<T> {
  const pagination = list.paginated ? paginationSchema : paginationSchema.optional();
  const body = parseProviderResponse(z.object({ [list.plural]: z.array(z.unknown()), pagination }), json, path);
  const entries = body[list.plural] as unknown[];
  const entry = z.object({ [list.singular]: list.item }).transform((e) => e[list.singular] as T);
  const { data, skipped, read } = parseRecords(entry, entries, { path, prefix: list.plural, idOf: list.idOf ?? idAt(list.singular) });
  return { items: data, pagination: body.pagination as MotivePagination | undefined, skipped, read };
}

/**
 * The small vehicle object embedded in driving periods and fault codes. `metric_units` is that
 * vehicle's display preference, not the unit of the record's figures (quirk M1 in docs/providers.md).
 */
export const embeddedVehicleSchema = z.object({ id, number: str(), metric_units: z.boolean().nullish() });

export const vehicleSchema = z.object({
  id,
  number: str(),
  status: str(),
  vin: str(),
  make: str(),
  model: str(),
  year: str(), // a string on the wire (motive.md §2)
  license_plate_state: str(),
  license_plate_number: str(),
  fuel_type: str(),
  metric_units: z.boolean().nullish(),
  eld_device: wire(z.object({ identifier: z.string().nullish() })),
  created_at: str(),
  updated_at: str(),
});
export type MotiveVehicle = z.output<typeof vehicleSchema>;
export const vehiclesEnvelope = listEnvelope('vehicles', 'vehicle', vehicleSchema);

export const userSchema = z.object({
  id,
  role: str(),
  status: str(),
  first_name: str(),
  last_name: str(),
  username: str(),
  email: str(),
  phone: str(),
  phone_country_code: str(), // "+1": users store phone and country code apart
  drivers_license_number: str(),
  drivers_license_state: str(),
  created_at: str(),
  updated_at: str(),
});
export type MotiveUser = z.output<typeof userSchema>;
export const usersEnvelope = listEnvelope('users', 'user', userSchema);

export const groupSchema = z.object({ id, name: str(), parent_id: id.nullish() });
export type MotiveGroup = z.output<typeof groupSchema>;
export const groupsEnvelope = listEnvelope('groups', 'group', groupSchema);
/** `GET /v1/groups/{id}/users`: only the ids matter for membership. */
export const groupUsersEnvelope = listEnvelope('users', 'user', z.object({ id }));

/** Location point fields shared by `current_location` (v1) and v3 `vehicle_location` (motive.md §5.1-5.2). */
const locationFields = {
  located_at: z.string(),
  lat: num(),
  lon: num(),
  bearing: num(),
  type: str(),
  speed: num(),
  odometer: num(),
  true_odometer: num(),
  engine_hours: num(),
  true_engine_hours: num(),
  fuel_primary_remaining_percentage: num(),
  battery_voltage: num(),
};
export const currentLocationSchema = z.object(locationFields);
export type MotiveLocation = z.output<typeof currentLocationSchema>;

export const vehicleLocationSchema = z.object({
  id,
  metric_units: z.boolean().nullish(),
  current_location: currentLocationSchema.nullish(),
});
export type MotiveVehicleLocation = z.output<typeof vehicleLocationSchema>;
export const vehicleLocationsEnvelope = listEnvelope('vehicles', 'vehicle', vehicleLocationSchema);

export const historyPointSchema = z.object({ id: z.string(), ...locationFields });
export type MotiveHistoryPoint = z.output<typeof historyPointSchema>;
export const historyEnvelope = listEnvelope('vehicle_locations', 'vehicle_location', historyPointSchema, false);

export const drivingPeriodSchema = z.object({
  id,
  start_time: z.string(),
  end_time: z.string().nullable(), // null while still driving
  duration: num(),
  start_kilometers: num(), // km always, whatever vehicle.metric_units says
  end_kilometers: num(),
  origin_lat: num(),
  origin_lon: num(),
  destination_lat: num(), // null while still driving
  destination_lon: num(),
  driver: z.object({ id }).nullish(),
  vehicle: embeddedVehicleSchema.nullish(), // presence unconfirmed (motive.md §6.1)
});
export type MotiveDrivingPeriod = z.output<typeof drivingPeriodSchema>;
export const drivingPeriodsEnvelope = listEnvelope('driving_periods', 'driving_period', drivingPeriodSchema);

export const faultCodeSchema = z.object({
  id,
  code: z.string(),
  code_label: str(),
  code_description: str(),
  status: z.string(),
  network: z.string().nullish(),
  fmi: z.union([z.number(), z.string()]).nullish(),
  fmi_description: str(),
  occurrence_count: z.number().nullish(),
  first_observed_at: str(),
  last_observed_at: str(),
  vehicle: embeddedVehicleSchema,
});
export type MotiveFaultCode = z.output<typeof faultCodeSchema>;
/**
 * A malformed fault code is reported by its vehicle's id: fault snapshots are complete per vehicle,
 * so what a bad code costs is that vehicle's snapshot (motive.adapter.ts `faults`).
 */
export const faultCodesEnvelope = listEnvelope('fault_codes', 'fault_code', faultCodeSchema, true, idAt('fault_code', 'vehicle'));
