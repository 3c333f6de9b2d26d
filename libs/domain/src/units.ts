/**
 * Unit normalization (spec 2.1, 2.7, 2.10; provider README conversion constants).
 *
 * Telemetry distance is meters and duration seconds; a reading whose source unit differs carries a
 * `UnitConversion {source, normalized, factor}`. Trips use kilometers and milliseconds. Invariant:
 * a value that is absent, not a number, non-finite or negative never converts to a number — the
 * result is `missing` or `invalid` with a reason, so "unknown" can never be mistaken for 0.
 */

export const DISTANCE_SOURCE_UNITS = ['meters', 'kilometers', 'miles'] as const;
export type DistanceSourceUnit = (typeof DISTANCE_SOURCE_UNITS)[number];
export const DURATION_SOURCE_UNITS = ['seconds', 'milliseconds', 'hours'] as const;
export type DurationSourceUnit = (typeof DURATION_SOURCE_UNITS)[number];
export type NormalizedUnit = 'meters' | 'seconds';

/** Present on a reading when the source unit differs from the normalized one (spec 2.1). */
export type UnitConversion =
  | { readonly source: DistanceSourceUnit; readonly normalized: 'meters'; readonly factor: number }
  | { readonly source: DurationSourceUnit; readonly normalized: 'seconds'; readonly factor: number };

/** Multiply a source value by these to get meters / seconds. 1 mile = 1609.344 m exactly (1959 agreement). */
export const METERS_PER = { meters: 1, kilometers: 1000, miles: 1609.344 } as const satisfies Record<DistanceSourceUnit, number>;
export const SECONDS_PER = { seconds: 1, milliseconds: 0.001, hours: 3600 } as const satisfies Record<DurationSourceUnit, number>;

export const SPEED_SOURCE_UNITS = ['meters_per_second', 'kilometers_per_hour', 'miles_per_hour'] as const;
export type SpeedSourceUnit = (typeof SPEED_SOURCE_UNITS)[number];
/** 1 mph = 0.44704 m/s exactly; 1 km/h = 1/3.6 m/s. */
export const METERS_PER_SECOND_PER = { meters_per_second: 1, kilometers_per_hour: 1 / 3.6, miles_per_hour: 0.44704 } as const satisfies Record<
  SpeedSourceUnit,
  number
>;

export type InvalidReason = 'not_a_number' | 'non_finite' | 'negative' | 'out_of_range' | 'malformed' | 'implausible_speed';

export type Converted<Extra extends object = object> =
  | ({ readonly ok: true; readonly value: number } & Extra)
  | { readonly ok: false; readonly status: 'missing' }
  | { readonly ok: false; readonly status: 'invalid'; readonly reason: InvalidReason };

export type ConvertedReading = Converted<{ readonly units?: UnitConversion }>;

const MISSING = { ok: false, status: 'missing' } as const;
const invalid = (reason: InvalidReason) => ({ ok: false, status: 'invalid', reason }) as const;

/**
 * Products such as 1.1 × 1000 come out as 1100.0000000000002 in binary floating point; 15
 * significant digits is what a double reliably carries, so round there and no further.
 */
function clean(n: number): number {
  return n === 0 ? 0 : Number(n.toPrecision(15));
}

/** Checks a raw counter-like value: present, a number, finite, not negative. */
export function checkNonNegative(raw: unknown): Converted {
  if (raw === null || raw === undefined) return MISSING;
  if (typeof raw !== 'number') return invalid('not_a_number');
  if (!Number.isFinite(raw)) return invalid('non_finite');
  if (raw < 0) return invalid('negative');
  return { ok: true, value: raw };
}

/** Checks a value inside [min, max] (heading 0..360, fuel percent 0..100, latitude …). */
export function checkRange(raw: unknown, min: number, max: number): Converted {
  if (raw === null || raw === undefined) return MISSING;
  if (typeof raw !== 'number') return invalid('not_a_number');
  if (!Number.isFinite(raw)) return invalid('non_finite');
  if (raw < min || raw > max) return invalid('out_of_range');
  return { ok: true, value: raw };
}

/** A distance counter (odometer, trip distance) to meters, with the conversion when the unit differs. */
export function toMeters(raw: unknown, unit: DistanceSourceUnit): ConvertedReading {
  const checked = checkNonNegative(raw);
  if (!checked.ok) return checked;
  if (unit === 'meters') return { ok: true, value: checked.value };
  const factor = METERS_PER[unit];
  return { ok: true, value: clean(checked.value * factor), units: { source: unit, normalized: 'meters', factor } };
}

/** A duration counter (engine hours, idle time) to seconds, with the conversion when the unit differs. */
export function toSeconds(raw: unknown, unit: DurationSourceUnit): ConvertedReading {
  const checked = checkNonNegative(raw);
  if (!checked.ok) return checked;
  if (unit === 'seconds') return { ok: true, value: checked.value };
  const factor = SECONDS_PER[unit];
  // Divide for milliseconds: 1/1000 is inexact in binary, the division is not.
  const value = unit === 'milliseconds' ? checked.value / 1000 : checked.value * factor;
  return { ok: true, value: clean(value), units: { source: unit, normalized: 'seconds', factor } };
}

/** Trip distance in kilometers (spec 2.7). */
export function toTripKilometers(raw: unknown, unit: DistanceSourceUnit): Converted {
  const checked = checkNonNegative(raw);
  if (!checked.ok) return checked;
  return { ok: true, value: unit === 'kilometers' ? checked.value : clean((checked.value * METERS_PER[unit]) / 1000) };
}

/**
 * The fastest average speed a trip can plausibly have, km/h. A reported trip distance implying more
 * over the trip's driving time is not a distance: a Geotab demo-database Trip reads 113,276.75 "km"
 * in 1 h 27 min (77,500 km/h; its own averageSpeed, 77.51 km/h, says metres). 300 is above any road
 * vehicle's sustained speed and far below what a unit slip (×1000, ×1609) produces.
 */
export const MAX_PLAUSIBLE_TRIP_KMH = 300;

/** A trip distance (km) against its driving duration (ms): `invalid: implausible_speed` above MAX_PLAUSIBLE_TRIP_KMH; a zero duration allows only 0 km. */
export function checkTripDistance(km: number, durationMs: number): Converted {
  // km / (ms / 3,600,000) > 300 ⇔ km × 3,600,000 > 300 × ms, so a zero duration needs no division.
  if (km * 3_600_000 > MAX_PLAUSIBLE_TRIP_KMH * durationMs) return invalid('implausible_speed');
  return { ok: true, value: km };
}

/** Trip duration in milliseconds (spec 2.7). */
export function toTripMilliseconds(raw: unknown, unit: DurationSourceUnit): Converted {
  const checked = checkNonNegative(raw);
  if (!checked.ok) return checked;
  const ms = unit === 'milliseconds' ? checked.value : unit === 'seconds' ? checked.value * 1000 : checked.value * 3_600_000;
  return { ok: true, value: clean(ms) };
}

/** Speed in meters per second (Samsara mph, Motive and Geotab km/h). */
export function toMetersPerSecond(raw: unknown, unit: SpeedSourceUnit): Converted {
  const checked = checkNonNegative(raw);
  if (!checked.ok) return checked;
  if (unit === 'meters_per_second') return checked;
  const value = unit === 'kilometers_per_hour' ? checked.value / 3.6 : checked.value * METERS_PER_SECOND_PER.miles_per_hour;
  return { ok: true, value: clean(value) };
}

/** Voltage in volts (Samsara reports millivolts). */
export function toVolts(raw: unknown, unit: 'volts' | 'millivolts'): Converted {
  const checked = checkNonNegative(raw);
  if (!checked.ok) return checked;
  return { ok: true, value: unit === 'volts' ? checked.value : clean(checked.value / 1000) };
}

export const millivoltsToVolts = (raw: unknown): Converted => toVolts(raw, 'millivolts');

// .NET TimeSpan "c" format as Geotab serializes it: [d.]hh:mm:ss[.fffffff]. Hours 0-23, minutes and
// seconds 0-59, fraction 1-7 digits (100 ns ticks). A leading '-' (negative span) is refused: every
// Geotab duration we read (drivingDuration, idlingDuration, …) is non-negative by definition.
const TIME_SPAN = /^(?:(\d{1,8})\.)?(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,7}))?$/;

/** Geotab TimeSpan string to seconds; `invalid: malformed` for anything else. */
export function parseTimeSpan(raw: unknown): Converted {
  if (raw === null || raw === undefined) return MISSING;
  if (typeof raw !== 'string') return invalid('malformed');
  const m = TIME_SPAN.exec(raw);
  if (!m) return invalid('malformed');
  const [, d, hh, mm, ss, frac] = m;
  const days = d === undefined ? 0 : Number(d);
  const hours = Number(hh);
  const minutes = Number(mm);
  const seconds = Number(ss);
  if (hours > 23 || minutes > 59 || seconds > 59) return invalid('malformed');
  // Whole seconds are exact integers; the fraction (100 ns ticks) is added once, so "00:00:04.5670000"
  // is 4.567 and not an accumulation of rounding errors.
  const whole = (days * 24 + hours) * 3600 + minutes * 60 + seconds;
  const fraction = Number((frac ?? '').padEnd(7, '0')) / 10_000_000;
  return { ok: true, value: whole + fraction };
}
