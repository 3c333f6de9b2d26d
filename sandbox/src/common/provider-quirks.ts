/**
 * The `provider_quirk` scenario: shapes real provider payloads are known to take (docs/providers.md
 * "Provider fidelity": the provider's own examples, SDKs and live captures), off by default so the
 * contract suites keep comparing against the plain fleet, and switched on per account through the
 * same control API as every other scenario (`PUT /_sim/accounts/{account}/scenarios`).
 *
 * Each quirk belongs to one provider; a simulator of another provider ignores it. Per-vehicle quirks
 * apply to the fleet vehicles at `vehicleIndexes` (default: vehicle 0 only), so a page mixes odd and
 * ordinary records — the point of the exercise is that one odd record never costs the others.
 */
import type { Scenario } from './scenario.types.js';

export const PROVIDER_QUIRKS = [
  /** Samsara: the listed vehicles carry only `id` and times — no name, VIN, make/model/year, plate, gateway or tags (per vehicle). */
  'samsara_sparse_vehicles',
  /** Samsara: the vehicle's faultCodes points also carry an OEM code without `codeIdentifier` (optional in Samsara's SDK; per vehicle). */
  'samsara_oem_code_without_identifier',
  /** Samsara: driver phones as the national number Samsara's own example shows (`"5558234327"`, no country code). */
  'samsara_national_phones',
  /** Samsara: `/trips/stream` without `ids` answers 404 (Samsara's reference marks `ids` required; a client saw the 404). */
  'samsara_trip_stream_ids_required',
  /** Geotab: Device and User `activeFrom`/`activeTo` as bare dates (`"2050-01-01"`), as Geotab's SDK README prints them. */
  'geotab_bare_dates',
  /** Geotab: two trailers in the Device feed (`deviceType: "None"`, productId -1, `GroupTrailerId`, engine VIN `"?"`). */
  'geotab_trailers',
  /** Geotab: the device reports engine VIN `"?"` (the ECU's "could not read") and has no typed-in VIN (per vehicle). */
  'geotab_unreadable_engine_vin',
  /** Geotab: an archived GO device in the Device feed (past `activeTo`, serial `000-000-0000`, as 4 of 6 Devices of a live capture). */
  'geotab_archived_devices',
  /** Geotab: the vehicle's Trip `distance` in metres where Geotab documents km (a demo-database Trip reads 113,276.75 for 1 h 27 min; per vehicle). */
  'geotab_trip_distance_in_metres',
  /** Motive: a vehicle nobody filled in: `year: "0"`, empty `make` and `model` (live capture; per vehicle). */
  'motive_unfilled_vehicles',
] as const;
export type ProviderQuirk = (typeof PROVIDER_QUIRKS)[number];

type QuirkScenario = Extract<Scenario, { kind: 'provider_quirk' }>;

const quirksOf = (scenarios: readonly Scenario[], quirk: ProviderQuirk): QuirkScenario[] =>
  scenarios.filter((s): s is QuirkScenario => s.kind === 'provider_quirk' && s.quirk === quirk);

/** Whether `quirk` is switched on for the account. */
export function quirkOn(scenarios: readonly Scenario[], quirk: ProviderQuirk): boolean {
  return quirksOf(scenarios, quirk).length > 0;
}

/** Whether a per-vehicle `quirk` is on for fleet vehicle `vehicleIndex` (`vehicleIndexes` absent = vehicle 0). */
export function quirkOnVehicle(scenarios: readonly Scenario[], quirk: ProviderQuirk, vehicleIndex: number): boolean {
  return quirksOf(scenarios, quirk).some((s) => (s.vehicleIndexes ?? [0]).includes(vehicleIndex));
}
