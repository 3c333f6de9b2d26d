/**
 * The fleet's static entities: vehicles (with an internal profile the schedule uses), drivers and
 * groups. Each entity is a pure function of (seed, index). Gaps sit on fixed index patterns so even
 * a 20-vehicle test fleet has each of them: index % 20 == 3 has no VIN (5 %), % 10 == 5 never
 * reports fuel (10 %), % 33 == 7 has no odometer (~3 %), % 20 == 9 is inactive (5 %).
 */
import { FIRST_NAMES, HOME_BASES, LAST_NAMES, MODELS, type HomeBase, type ModelEntry } from './catalog.js';
import type { SimDriver, SimGroup, SimVehicle } from './fleet.types.js';
import { Stream, TAG, hash } from './prng.js';
import { makeVin } from './vin.js';

const DAY_MS = 86_400_000;
const ALNUM = 'ABCDEFGHJKLMNPRSTUVWXYZ23456789';

/** What the schedule needs to know about a vehicle beyond its public record. */
export interface VehicleProfile {
  readonly model: ModelEntry;
  readonly home: HomeBase;
  readonly primaryDriver: number | null;
  /** Fuel burn, percent of tank per second of driving / idling (≤ 30 % per 10 h shift, see schedule). */
  readonly fuelDrivePctPerS: number;
  readonly fuelIdlePctPerS: number;
  readonly initialFuelPct: number;
  /** Route loop radius around the home base, meters. */
  readonly routeRadiusM: number;
}

export function gapFlags(index: number): { hasVin: boolean; reportsFuel: boolean; hasOdometer: boolean; active: boolean } {
  return { hasVin: index % 20 !== 3, reportsFuel: index % 10 !== 5, hasOdometer: index % 33 !== 7, active: index % 20 !== 9 };
}

function chars(draw: Stream, alphabet: string, n: number): string {
  let out = '';
  for (let i = 0; i < n; i++) out += alphabet[draw.int(0, alphabet.length - 1)];
  return out;
}

export function makeVehicle(root: number, index: number, epochMs: number, groups: readonly SimGroup[], drivers: number): [SimVehicle, VehicleProfile] {
  const draw = new Stream(hash(root, TAG.vehicle, index));
  const model = draw.pick(MODELS);
  const home = draw.pick(HOME_BASES);
  const year = draw.int(2015, 2025);
  const flags = gapFlags(index);
  const vin = makeVin(model.wmi, year, draw, `${model.make} ${model.model}`);
  const createdAtMs = epochMs - draw.int(1, 720) * DAY_MS - draw.int(0, 86_399) * 1000;
  const updatedAtMs = createdAtMs + Math.floor((draw.next() * (epochMs - createdAtMs)) / 1000) * 1000;
  const initialOdometerM = draw.int(5_000_000, 400_000_000);
  // Mixed driving averages ~12 m/s with a third of engine time idling.
  const initialEngineS = Math.round((initialOdometerM / 12) * draw.range(1.2, 1.5));
  const leafStart = groups.length > 1 ? 1 : 0;
  const groupIndexes = [draw.int(leafStart, groups.length - 1)];
  // One vehicle in 20 sits in a second group too (Samsara tags, Geotab groups are many-to-many).
  if (draw.next() < 0.05 && groups.length > 2) {
    const second = draw.int(leafStart, groups.length - 1);
    if (second !== groupIndexes[0]) groupIndexes.push(second);
  }
  const vehicle: SimVehicle = {
    index,
    name: `Unit ${String(index + 1).padStart(4, '0')}`,
    vin: flags.hasVin ? vin : null,
    make: model.make,
    model: model.model,
    year,
    fuelType: model.fuelType,
    licensePlate: `${chars(draw, 'ABCDEFGHJKLMNPRSTUVWXYZ', 3)}${draw.int(1000, 9999)}`,
    licenseState: home.state,
    serialNumber: `SY${chars(draw, ALNUM, 10)}`,
    groupIndexes,
    createdAtMs,
    updatedAtMs,
    active: flags.active,
    reportsFuel: flags.reportsFuel,
    hasOdometer: flags.hasOdometer,
    initialOdometerM,
    initialEngineS,
  };
  const fuelFactor = draw.range(0.7, 1.0);
  const profile: VehicleProfile = {
    model,
    home,
    primaryDriver: drivers > 0 ? index % drivers : null,
    fuelDrivePctPerS: (3.0 * fuelFactor) / 3600,
    fuelIdlePctPerS: (0.8 * fuelFactor) / 3600,
    initialFuelPct: draw.range(45, 100),
    routeRadiusM: draw.int(8_000, 60_000),
  };
  return [vehicle, profile];
}

export function makeDriver(root: number, index: number, epochMs: number, groups: readonly SimGroup[]): SimDriver {
  const draw = new Stream(hash(root, TAG.driver, index));
  const firstName = draw.pick(FIRST_NAMES);
  const lastName = draw.pick(LAST_NAMES);
  const username = `${firstName}.${lastName}.${index + 1}`.toLowerCase();
  const hasEmail = draw.next() >= 0.1;
  const hasPhone = draw.next() >= 0.15;
  const hasLicense = draw.next() >= 0.1;
  const home = draw.pick(HOME_BASES);
  const createdAtMs = epochMs - draw.int(1, 900) * DAY_MS - draw.int(0, 86_399) * 1000;
  const updatedAtMs = createdAtMs + Math.floor((draw.next() * (epochMs - createdAtMs)) / 1000) * 1000;
  const areaCode = draw.int(201, 989);
  const line = String(draw.int(0, 9_999_999)).padStart(7, '0');
  const licenseNumber = `${home.state}${chars(draw, '0123456789', 8)}`;
  return {
    index,
    firstName,
    lastName,
    email: hasEmail ? `${username}@fleet.example.com` : null,
    phone: hasPhone ? `+1${areaCode}${line}` : null,
    username,
    licenseNumber: hasLicense ? licenseNumber : null,
    licenseState: hasLicense ? home.state : null,
    groupIndexes: groups.length > 0 ? [draw.int(groups.length > 1 ? 1 : 0, groups.length - 1)] : [],
    createdAtMs,
    updatedAtMs,
    active: index % 25 !== 11,
  };
}

const REGIONS = ['North', 'South', 'East', 'West', 'Central', 'Mountain', 'Pacific', 'Atlantic'];

/** Groups form up to 3 levels: ~10 % regions (roots), ~30 % depots under regions, the rest teams under depots. */
export function makeGroups(root: number, count: number): SimGroup[] {
  const roots = Math.max(1, Math.round(count * 0.1));
  const depots = Math.min(count - roots, Math.max(1, Math.round(count * 0.3)));
  const groups: SimGroup[] = [];
  for (let i = 0; i < count; i++) {
    const draw = new Stream(hash(root, TAG.group, i));
    if (i < roots) {
      const region = REGIONS[i % REGIONS.length] as string;
      groups.push({ index: i, name: i < REGIONS.length ? `${region} Region` : `${region} Region ${Math.floor(i / REGIONS.length) + 1}`, parentIndex: null });
    } else if (i < roots + depots) {
      groups.push({ index: i, name: `${draw.pick(HOME_BASES).city} Depot ${i}`, parentIndex: draw.int(0, roots - 1) });
    } else {
      groups.push({ index: i, name: `Team ${i}`, parentIndex: roots + draw.int(0, depots - 1) });
    }
  }
  return groups;
}
