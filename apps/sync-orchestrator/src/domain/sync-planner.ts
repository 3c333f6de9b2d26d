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
 *   built, so a 10-million-unit request costs no memory, and nothing is ever truncated (rule 8).
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

export function planSync(input: PlanInput): PlanResult {
  const limits = input.limits ?? SYNC_PLAN;
  const fail = (error: PlanFailure, detail: string): PlanResult => ({ ok: false, error, detail });
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

  const count = connectionLevel.length + vehicles.length * perVehicle.length + vehicles.length * slices * windowed.length;
  if (count > limits.maxUnits) return fail('sync_plan_too_large', `${count} units > ${limits.maxUnits}`);

  const start = input.startFrom.getTime();
  const end = input.intervalEnd.getTime();
  const interval = { windowStart: input.startFrom.toISOString(), windowEnd: input.intervalEnd.toISOString() };
  const units: PlannedUnit[] = [];
  for (const purpose of connectionLevel) units.push({ seq: units.length, purpose, vehicleSourceId: null, windowStart: null, windowEnd: null });
  for (const purpose of perVehicle) {
    const window = purpose === 'faults' ? interval : { windowStart: null, windowEnd: null };
    for (const vehicleSourceId of vehicles) units.push({ seq: units.length, purpose, vehicleSourceId, ...window });
  }
  for (const purpose of windowed) {
    for (let slice = 0; slice < slices; slice++) {
      const windowStart = new Date(start + slice * TRIP_SLICE_MS).toISOString();
      const windowEnd = new Date(Math.min(start + (slice + 1) * TRIP_SLICE_MS, end)).toISOString();
      for (const vehicleSourceId of vehicles) units.push({ seq: units.length, purpose, vehicleSourceId, windowStart, windowEnd });
    }
  }
  const bytes = Buffer.byteLength(JSON.stringify(units), 'utf8');
  if (bytes > limits.maxBytes) return fail('sync_plan_too_large', `${bytes} bytes > ${limits.maxBytes}`);
  return { ok: true, units, bytes };
}
