/**
 * Plans a sync into units: purpose × approved vehicle × time slice (spec 4.1 rules 3, 5, 8).
 * Pure: the lifecycle service hands it the connection's configuration snapshot, the provider's
 * capability support table and the interval, and stores what it returns in one statement.
 *
 * Decisions (documented in the OpenAPI description of POST /v1/syncs):
 * - public purposes (`SYNC_PURPOSES`, spec 4.1 rule 5) are the only ones `POST /v1/syncs` plans;
 *   the INTERNAL purposes (`INTERNAL_SYNC_PURPOSES`: drivers, groups, telemetryLatest,
 *   telemetryHistory, faults) are planned only for internal runs (SyncLifecycleService.createInternal,
 *   the scheduled collection) — never through the public API;
 * - `drivers` and `groups` are connection-level listings: ONE unit per sync with
 *   `vehicleSourceId: null` (no vehicle: the listing is the connection's, not a vehicle's);
 * - `telemetryLatest` and `faults` are per-vehicle snapshots like `vehicles`; a `faults` unit also
 *   carries the sync interval as its window (explicit-records providers read the records inside
 *   it, complete-snapshot providers take their snapshot at its end);
 * - `telemetryHistory` is windowed like `trips`: one unit per vehicle per slice;
 * - `vehicles` and `groupMemberships` are snapshots: one unit per approved vehicle, no window;
 *   `trips` is windowed: one unit per approved vehicle per slice of TRIP_SLICE_MS (one day) from
 *   startFrom to the request time, the last slice shorter when the interval has a fractional day;
 * - a purpose whose required provider fields are all `unsupported` fails the whole plan with
 *   `unsupported_purpose` (rule 5: rejected atomically, not omitted);
 * - no approved vehicle while a per-vehicle purpose is asked → `empty_selection`; only windowed
 *   purposes (`trips`, `telemetryHistory`) and an empty interval → `empty_interval`;
 * - more than SYNC_PLAN.maxUnits units, or a serialized plan (the JSON array of units as stored)
 *   over SYNC_PLAN.maxBytes → `sync_plan_too_large`; the unit count is computed before anything is
 *   built, so a 10-million-unit request costs no memory, and nothing is ever truncated (rule 8);
 * - scheduled collection does not stop there: `splitPlan` cuts a window's plan into parts (runs)
 *   that each keep within the limits and together hold every unit once (decision 0009).
 */
import { SYNC_PLAN } from '@switchyard/contracts';

/** The purposes of the public API (spec 4.1 rule 5). */
export const SYNC_PURPOSES = ['vehicles', 'groupMemberships', 'trips'] as const;
export type PublicSyncPurpose = (typeof SYNC_PURPOSES)[number];
/** Purposes only internal runs (scheduled collection) plan; the public API never accepts them. */
export const INTERNAL_SYNC_PURPOSES = ['drivers', 'groups', 'telemetryLatest', 'telemetryHistory', 'faults'] as const;
export type InternalSyncPurpose = (typeof INTERNAL_SYNC_PURPOSES)[number];
/** Every purpose, in plan order. */
export const ALL_SYNC_PURPOSES = [...SYNC_PURPOSES, ...INTERNAL_SYNC_PURPOSES] as const;
export type SyncPurpose = PublicSyncPurpose | InternalSyncPurpose;

/** Listings of the whole connection: one unit per sync, no vehicle. */
export const CONNECTION_PURPOSES: readonly SyncPurpose[] = ['drivers', 'groups'];
/** One unit per vehicle per slice of the interval. */
export const WINDOWED_PURPOSES: readonly SyncPurpose[] = ['trips', 'telemetryHistory'];

export const isPublicPurpose = (p: string): p is PublicSyncPurpose => (SYNC_PURPOSES as readonly string[]).includes(p);
export const isInternalPurpose = (p: string): p is InternalSyncPurpose => (INTERNAL_SYNC_PURPOSES as readonly string[]).includes(p);

/** One trip (and telemetry history) slice: a day keeps a unit's provider work to a few pages per vehicle. */
export const TRIP_SLICE_MS = 86_400_000;

/**
 * The provider capability fields each purpose needs; one `unsupported` field rejects the purpose.
 * Telemetry needs at least one collectable metric, decided with the connection's signals by
 * collection-scope.ts (telemetryMetricsFor), not here.
 */
export const PURPOSE_REQUIREMENTS: Readonly<Record<SyncPurpose, readonly string[]>> = {
  vehicles: ['vehicle.name'],
  groupMemberships: ['vehicle.groups'],
  trips: ['trip.startedAt', 'trip.endedAt'],
  drivers: ['driver.status'],
  groups: ['group.name'],
  telemetryLatest: [],
  telemetryHistory: [],
  faults: ['faults.open'],
};

export interface PlannedUnit {
  readonly seq: number;
  readonly purpose: SyncPurpose;
  /** The approved vehicle; null for the connection-level purposes (drivers, groups). */
  readonly vehicleSourceId: string | null;
  /** Inclusive start and exclusive end (RFC 3339) for windowed purposes and faults; null for snapshot purposes. */
  readonly windowStart: string | null;
  readonly windowEnd: string | null;
}

export interface PlanInput {
  readonly purposes: readonly SyncPurpose[];
  readonly vehicleSourceIds: readonly string[];
  readonly startFrom: Date;
  /** The request time: the interval's exclusive end. */
  readonly intervalEnd: Date;
  /** Capability support per field (`supported` | `conditional` | `unsupported`). */
  readonly support: Readonly<Record<string, string>>;
  readonly limits?: { readonly maxUnits: number; readonly maxBytes: number };
}

export type PlanFailure = 'gate_disabled' | 'unsupported_purpose' | 'empty_selection' | 'empty_interval' | 'sync_plan_too_large';
export type PlanResult =
  | { readonly ok: true; readonly units: readonly PlannedUnit[]; readonly bytes: number }
  | { readonly ok: false; readonly error: PlanFailure; readonly detail: string };

/** Number of trip slices in [start, end): 0 when the interval is empty. */
export function sliceCount(start: Date, end: Date): number {
  const span = end.getTime() - start.getTime();
  return span > 0 ? Math.ceil(span / TRIP_SLICE_MS) : 0;
}

/** Which units a valid plan has, before any is built: the purposes by unit shape, the distinct vehicles, the slices. */
interface PlanShape {
  readonly connectionLevel: readonly SyncPurpose[];
  readonly perVehicle: readonly SyncPurpose[];
  readonly windowed: readonly SyncPurpose[];
  readonly vehicles: readonly string[];
  readonly slices: number;
}

type Refusal = { readonly ok: false; readonly error: PlanFailure; readonly detail: string };

/** Every check of a plan except its size (rules 3 and 5): the same for a whole plan and a split one. */
function planShape(input: PlanInput): { readonly ok: true; readonly shape: PlanShape } | Refusal {
  const fail = (error: PlanFailure, detail: string): Refusal => ({ ok: false, error, detail });
  const purposes = ALL_SYNC_PURPOSES.filter((p) => input.purposes.includes(p));
  if (purposes.length === 0) return fail('gate_disabled', 'no purpose is enabled');
  for (const purpose of purposes) {
    const missing = PURPOSE_REQUIREMENTS[purpose].filter((field) => (input.support[field] ?? 'unsupported') === 'unsupported');
    if (missing.length > 0) return fail('unsupported_purpose', `${purpose} needs ${missing.join(', ')}`);
  }
  const connectionLevel = purposes.filter((p) => CONNECTION_PURPOSES.includes(p));
  const windowed = purposes.filter((p) => WINDOWED_PURPOSES.includes(p));
  const perVehicle = purposes.filter((p) => !connectionLevel.includes(p) && !windowed.includes(p));
  const vehicles = [...new Set(input.vehicleSourceIds)];
  if (vehicles.length === 0 && (perVehicle.length > 0 || windowed.length > 0)) return fail('empty_selection', 'no approved vehicle');
  const slices = windowed.length > 0 ? sliceCount(input.startFrom, input.intervalEnd) : 0;
  if (connectionLevel.length === 0 && perVehicle.length === 0 && slices === 0) {
    return fail('empty_interval', `${windowed.join(', ')} only, and startFrom is not before the request time`);
  }
  return { ok: true, shape: { connectionLevel, perVehicle, windowed, vehicles, slices } };
}

/** The window of a unit: the interval for faults, the slice for windowed purposes, none for snapshots. */
function unitWindow(purpose: SyncPurpose, slice: number, start: Date, end: Date): { windowStart: string | null; windowEnd: string | null } {
  if (purpose === 'faults') return { windowStart: start.toISOString(), windowEnd: end.toISOString() };
  if (!WINDOWED_PURPOSES.includes(purpose)) return { windowStart: null, windowEnd: null };
  const from = start.getTime() + slice * TRIP_SLICE_MS;
  return { windowStart: new Date(from).toISOString(), windowEnd: new Date(Math.min(from + TRIP_SLICE_MS, end.getTime())).toISOString() };
}

export function planSync(input: PlanInput): PlanResult {
  const limits = input.limits ?? SYNC_PLAN;
  const shaped = planShape(input);
  if (!shaped.ok) return shaped;
  const { connectionLevel, perVehicle, windowed, vehicles, slices } = shaped.shape;

  const count = connectionLevel.length + vehicles.length * perVehicle.length + vehicles.length * slices * windowed.length;
  if (count > limits.maxUnits) return { ok: false, error: 'sync_plan_too_large', detail: `${count} units > ${limits.maxUnits}` };

  const units: PlannedUnit[] = [];
  for (const purpose of connectionLevel) units.push({ seq: units.length, purpose, vehicleSourceId: null, windowStart: null, windowEnd: null });
  for (const purpose of perVehicle) {
    const window = unitWindow(purpose, 0, input.startFrom, input.intervalEnd);
    for (const vehicleSourceId of vehicles) units.push({ seq: units.length, purpose, vehicleSourceId, ...window });
  }
  for (const purpose of windowed) {
    for (let slice = 0; slice < slices; slice++) {
      const window = unitWindow(purpose, slice, input.startFrom, input.intervalEnd);
      for (const vehicleSourceId of vehicles) units.push({ seq: units.length, purpose, vehicleSourceId, ...window });
    }
  }
  const bytes = Buffer.byteLength(JSON.stringify(units), 'utf8');
  if (bytes > limits.maxBytes) return { ok: false, error: 'sync_plan_too_large', detail: `${bytes} bytes > ${limits.maxBytes}` };
  return { ok: true, units, bytes };
}

/** One run of a split plan: `planSync` over these purposes and vehicles, with the same interval and limits, plans it. */
export interface PlanPart {
  /** The purposes the part's run collects (connection-level ones only in the part that holds their units). */
  readonly purposes: readonly SyncPurpose[];
  /** Its vehicles, in the split's order (sorted); empty for a part of connection-level units only. */
  readonly vehicleSourceIds: readonly string[];
  readonly units: number;
  /** Upper bound of the serialized plan (every seq counted at the widest the limit allows). */
  readonly bytes: number;
}

export type SplitResult = { readonly ok: true; readonly parts: readonly PlanPart[] } | Refusal;

const byCodeUnit = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/**
 * The plan of `input` cut into parts that each keep within the limits, for scheduled collection
 * (decision 0009, "Scheduled windows over the plan limit"); the public POST /v1/syncs never splits
 * (`planSync`, rule 8). The parts together hold every unit `planSync` would plan without limits,
 * each exactly once: the connection-level units (drivers, groups) first, then the vehicles sorted
 * by id, all units of one vehicle in one part, a part closed when the next item would not fit.
 * The same input always gives the same parts. Refused with `planSync`'s refusals (nothing to
 * plan), and with `sync_plan_too_large` only when one vehicle's own units exceed the limits —
 * impossible under the default limits (at most 3 snapshot purposes + 2 windowed × the slices of
 * the scheduler's longest catch-up). Builds no unit: a vehicle's size is a template's plus its id.
 */
export function splitPlan(input: PlanInput): SplitResult {
  const limits = input.limits ?? SYNC_PLAN;
  const shaped = planShape(input);
  if (!shaped.ok) return shaped;
  const { connectionLevel, perVehicle, windowed, slices } = shaped.shape;
  const vehiclePurposes = [...perVehicle, ...windowed];

  // Serialized size of a unit as one array element (its comma or closing bracket included), at the widest seq.
  const widestSeq = Math.max(limits.maxUnits - 1, 0);
  const sized = (purpose: SyncPurpose, vehicleSourceId: string | null, slice: number): number =>
    Buffer.byteLength(JSON.stringify({ seq: widestSeq, purpose, vehicleSourceId, ...unitWindow(purpose, slice, input.startFrom, input.intervalEnd) }), 'utf8') + 1;
  let vehicleUnits = perVehicle.length;
  let templateBytes = perVehicle.reduce((sum, purpose) => sum + sized(purpose, '', 0), 0);
  for (const purpose of windowed) {
    for (let slice = 0; slice < slices; slice++) templateBytes += sized(purpose, '', slice);
    vehicleUnits += slices;
  }

  type Open = { connection: SyncPurpose[]; vehicles: string[]; units: number; bytes: number };
  const fresh = (): Open => ({ connection: [], vehicles: [], units: 0, bytes: 1 });
  const closed: Open[] = [];
  let open = fresh();
  const place = (units: number, bytes: number): boolean => {
    if (units > limits.maxUnits || 1 + bytes > limits.maxBytes) return false;
    if (open.units + units > limits.maxUnits || open.bytes + bytes > limits.maxBytes) {
      closed.push(open);
      open = fresh();
    }
    open.units += units;
    open.bytes += bytes;
    return true;
  };

  for (const purpose of connectionLevel) {
    const bytes = sized(purpose, null, 0);
    if (!place(1, bytes)) return { ok: false, error: 'sync_plan_too_large', detail: `${purpose} alone is ${1 + bytes} bytes > ${limits.maxBytes}` };
    open.connection.push(purpose);
  }
  if (vehicleUnits > 0) {
    for (const vehicle of [...shaped.shape.vehicles].sort(byCodeUnit)) {
      const bytes = templateBytes + vehicleUnits * (Buffer.byteLength(JSON.stringify(vehicle), 'utf8') - 2);
      if (!place(vehicleUnits, bytes)) {
        return { ok: false, error: 'sync_plan_too_large', detail: `vehicle ${vehicle} alone is ${vehicleUnits} units, ${1 + bytes} bytes > ${limits.maxUnits} units, ${limits.maxBytes} bytes` };
      }
      open.vehicles.push(vehicle);
    }
  }
  if (open.units > 0) closed.push(open);
  return {
    ok: true,
    parts: closed.map((part) => ({
      purposes: ALL_SYNC_PURPOSES.filter((p) => part.connection.includes(p) || (part.vehicles.length > 0 && vehiclePurposes.includes(p))),
      vehicleSourceIds: part.vehicles,
      units: part.units,
      bytes: part.bytes,
    })),
  };
}
