/**
 * The offline rules of a 17-character Vehicle Identification Number (49 CFR 565, ISO 3779), with no
 * dataset: normalization, the check digit (position 9) and the model-year candidates of position 10
 * with its 30-year cycle. What a VIN *means* (make, model, trim…) needs NHTSA's vPIC data and is the
 * enrichment context's (apps/enrichment/src/identity).
 * Invariants:
 * - a VIN is judged after trimming and upper-casing; anything else about it is never repaired
 *   (no I→1 or O→0 substitution): a wrong length, a letter I, O or Q, any other character outside
 *   0-9/A-Z, or a check digit that does not match is `invalid`, never guessed;
 * - the model year is a year only when one candidate remains; otherwise it is reported ambiguous;
 * - position 7 narrows the two candidates only for the light vehicles the rule covers
 *   (positionSevenRuleApplies): a heavy truck's or bus's letter at position 7 says nothing.
 */

/** Positions are 1-based in the standard; these are the weights of positions 1…17. */
const WEIGHTS = [8, 7, 6, 5, 4, 3, 2, 10, 0, 9, 8, 7, 6, 5, 4, 3, 2] as const;

/** Transliteration of letters to values (I, O and Q are not allowed in a VIN). */
const LETTER_VALUES: Readonly<Record<string, number>> = {
  A: 1, B: 2, C: 3, D: 4, E: 5, F: 6, G: 7, H: 8,
  J: 1, K: 2, L: 3, M: 4, N: 5, P: 7, R: 9,
  S: 2, T: 3, U: 4, V: 5, W: 6, X: 7, Y: 8, Z: 9,
};

/** Position-10 codes in cycle order: A = 1980 (and 2010), … Y = 2000 (2030), 1 = 2001 (2031), … 9 = 2009 (2039). */
const YEAR_CODES = 'ABCDEFGHJKLMNPRSTVWXY123456789';
const FIRST_CYCLE_START = 1980;
const CYCLE_YEARS = 30;

export type VinInvalidReason = 'vin_length' | 'vin_characters' | 'vin_check_digit';

export type VinCheck =
  | { readonly status: 'missing' }
  | { readonly status: 'invalid'; readonly vin: string; readonly reason: VinInvalidReason; readonly checksum: boolean | null }
  | { readonly status: 'valid'; readonly vin: string; readonly wmi: string; readonly checksum: true };

/** Trimmed and upper-cased; null for null, undefined or blank. */
export function normalizeVin(raw: string | null | undefined): string | null {
  const vin = raw?.trim().toUpperCase() ?? '';
  return vin === '' ? null : vin;
}

/** The value of one VIN character, undefined for a character a VIN may not contain (I, O, Q, punctuation…). */
function charValue(c: string): number | undefined {
  if (c >= '0' && c <= '9') return c.charCodeAt(0) - 48;
  return LETTER_VALUES[c];
}

/** The check digit a 17-character VIN of allowed characters must carry at position 9 ('0'-'9' or 'X'); undefined otherwise. */
export function vinCheckDigit(vin: string): string | undefined {
  if (vin.length !== 17) return undefined;
  let sum = 0;
  for (let i = 0; i < 17; i++) {
    const value = charValue(vin.charAt(i));
    if (value === undefined) return undefined;
    sum += value * (WEIGHTS[i] as number);
  }
  const remainder = sum % 11;
  return remainder === 10 ? 'X' : String(remainder);
}

/** Structure and check digit of a raw VIN (lowercase and surrounding blanks accepted). */
export function checkVin(raw: string | null | undefined): VinCheck {
  const vin = normalizeVin(raw);
  if (vin === null) return { status: 'missing' };
  if (vin.length !== 17) return { status: 'invalid', vin, reason: 'vin_length', checksum: null };
  if (![...vin].every((c) => charValue(c) !== undefined)) return { status: 'invalid', vin, reason: 'vin_characters', checksum: null };
  if (vinCheckDigit(vin) !== vin.charAt(8)) return { status: 'invalid', vin, reason: 'vin_check_digit', checksum: false };
  return { status: 'valid', vin, wmi: vin.slice(0, 3), checksum: true };
}

export interface ModelYearOptions {
  /** The latest model year that can exist now: the calendar year + 1 (a model year starts before its calendar year). */
  readonly latestYear: number;
  /**
   * Whether position 7 tells the cycle: for passenger cars, multipurpose vehicles and trucks of
   * 10,000 lb GVWR or less (49 CFR 565.15(d)), a letter at position 7 means 2010-2039 and a digit
   * 1980-2009. Not for heavier trucks, buses, trailers or motorcycles (positionSevenRuleApplies).
   */
  readonly positionSevenRule: boolean;
}

/** The heaviest GVWR class the position-7 rule covers: classes 1 (≤ 6,000 lb) and 2 (6,001-10,000 lb). */
export const POSITION_SEVEN_MAX_GVWR_CLASS = 2;

export interface VehicleKindForYear {
  /** The vehicle type its manufacturer registered (with NHTSA: the WMI's vPIC type). */
  readonly type: 'passenger_car' | 'mpv' | 'truck' | 'other';
  /** The GVWR classes (1-8) known for it: its own, else every one its manufacturer code registers; empty when unknown. */
  readonly gvwrClasses: readonly number[];
}

/**
 * Whether position 7 decides the cycle of a VIN valid under 49 CFR 565 (the North American rule;
 * the check digit checkVin demands is that rule's too): always for passenger cars and MPVs; for a
 * truck only when every GVWR class known for it is 1 or 2 (≤ 10,000 lb) — a truck of unknown or
 * mixed weight, and any bus, trailer, motorcycle or incomplete vehicle, is left to other evidence.
 */
export function positionSevenRuleApplies(kind: VehicleKindForYear): boolean {
  if (kind.type === 'passenger_car' || kind.type === 'mpv') return true;
  if (kind.type !== 'truck' || kind.gvwrClasses.length === 0) return false;
  return kind.gvwrClasses.every((c) => c >= 1 && c <= POSITION_SEVEN_MAX_GVWR_CLASS);
}

export interface ModelYearCandidates {
  /** The candidate years, oldest first (empty when position 10 is not a model-year code). */
  readonly years: readonly number[];
  /** More than one candidate remains. */
  readonly ambiguous: boolean;
}

/** The model years position 10 of a valid VIN can stand for, narrowed by position 7 when the rule applies. */
export function vinModelYearCandidates(vin: string, options: ModelYearOptions): ModelYearCandidates {
  const index = YEAR_CODES.indexOf(vin.charAt(9));
  if (vin.length !== 17 || index < 0) return { years: [], ambiguous: false };
  let years = [FIRST_CYCLE_START + index, FIRST_CYCLE_START + CYCLE_YEARS + index].filter((y) => y <= options.latestYear);
  if (options.positionSevenRule && years.length > 1) {
    const seventh = vin.charAt(6);
    const newCycle = seventh >= 'A' && seventh <= 'Z';
    years = years.filter((y) => (newCycle ? y >= FIRST_CYCLE_START + CYCLE_YEARS : y < FIRST_CYCLE_START + CYCLE_YEARS));
  }
  return { years, ambiguous: years.length > 1 };
}

/** The latest model year at an instant: its calendar year + 1. */
export function latestModelYear(now: Date): number {
  return now.getUTCFullYear() + 1;
}
