/**
 * How the Samsara simulator names the shared fleet: ids, per-vehicle hardware facts and cursors.
 * Invariant: every mapping here is a pure function of the fleet index, so the contract suite can
 * compute the ids and gaps the simulator will show without asking it.
 *
 * Ids look like Samsara's (numeric strings): vehicles 2^48 + 1 + index (15 digits, like the reference's
 * "281474976710657", still a safe integer for the legacy `vehicleId` int), drivers 52,000,000 + index,
 * tags 390,000 + index.
 */
import { MODELS } from '../fleet/catalog.js';
import type { SimVehicle } from '../fleet/fleet.types.js';

const VEHICLE_BASE = 2 ** 48 + 1;
const DRIVER_BASE = 52_000_000;
const TAG_BASE = 390_000;

export const samsaraVehicleId = (index: number): string => String(VEHICLE_BASE + index);
export const samsaraDriverId = (index: number): string => String(DRIVER_BASE + index);
export const samsaraTagId = (index: number): string => String(TAG_BASE + index);

function indexOf(id: string | null | undefined, base: number): number | undefined {
  if (!id || !/^\d{1,16}$/.test(id)) return undefined;
  const index = Number(id) - base;
  return index >= 0 ? index : undefined;
}
export const vehicleIndexOf = (id: string | null | undefined): number | undefined => indexOf(id, VEHICLE_BASE);
export const driverIndexOf = (id: string | null | undefined): number | undefined => indexOf(id, DRIVER_BASE);
export const tagIndexOf = (id: string | null | undefined): number | undefined => indexOf(id, TAG_BASE);

/**
 * One vehicle in six has no ECU diagnostic coverage: Samsara then has no `obdOdometerMeters` /
 * `obdEngineSeconds`, only the GPS odometer (a manual offset was set) and synthetic engine seconds.
 */
export const samsaraHasEcu = (vehicleIndex: number): boolean => vehicleIndex % 6 !== 4;

/** The vehicle's diagnostic bus, from its model (heavy-duty J1939, light-duty OBD-II). */
export function samsaraProtocol(v: SimVehicle): 'obdii' | 'j1939' {
  return MODELS.find((m) => m.make === v.make && m.model === v.model)?.protocol ?? 'obdii';
}

/** Gateway model by bus: heavy trucks carry the VG54NA, light vehicles the AG26-style plug-in unit. */
export const samsaraGatewayModel = (v: SimVehicle): string => (samsaraProtocol(v) === 'j1939' ? 'VG54NA' : 'VG34');

/** SAE J2012 numeric DTC: the letter in the top two bits (P=0, C=1, B=2, U=3), then the hex digits. P0420 → 1056. */
export function obdDtcId(shortCode: string): number {
  const letter = 'PCBU'.indexOf(shortCode[0] ?? 'P');
  return ((letter < 0 ? 0 : letter) << 14) | (Number.parseInt(shortCode.slice(1), 16) & 0x3fff);
}

/** Samsara-style RFC 3339: whole seconds without a fraction ("2024-09-01T06:03:40Z"). */
export function samsaraTime(ms: number): string {
  return new Date(ms).toISOString().replace('.000Z', 'Z');
}

/** Opaque page cursors: base64 of `<kind>:<n>[:<n>…]` (offsets, feed times). A cursor of one endpoint is refused by another. */
export function encodeSimCursor(kind: string, ...numbers: number[]): string {
  return Buffer.from([kind, ...numbers].join(':'), 'utf8').toString('base64');
}

/** The numbers of a cursor issued for `kind`; undefined when there is none, 'bad' when it is not ours. */
export function decodeSimCursor(raw: string | null, kind: string, count: number): number[] | undefined | 'bad' {
  if (raw === null || raw === '') return undefined;
  const text = Buffer.from(raw, 'base64').toString('utf8');
  if (!text.startsWith(`${kind}:`)) return 'bad';
  const numbers = text.slice(kind.length + 1).split(':').map(Number);
  return numbers.length === count && numbers.every((n) => Number.isSafeInteger(n) && n >= 0) ? numbers : 'bad';
}
