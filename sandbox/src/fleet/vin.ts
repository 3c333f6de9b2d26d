/**
 * ISO 3779 / 49 CFR 565 VINs: 17 characters without I, O, Q, with the check digit at position 9
 * (index 8) = Σ(transliterated value × weight) mod 11, 10 written as 'X'. Every VIN the fleet emits
 * passes `vinCheckDigit(vin) === vin[8]`.
 */
import type { Stream } from './prng.js';

const WEIGHTS = [8, 7, 6, 5, 4, 3, 2, 10, 0, 9, 8, 7, 6, 5, 4, 3, 2];
const LETTER_VALUES: Record<string, number> = {
  A: 1, B: 2, C: 3, D: 4, E: 5, F: 6, G: 7, H: 8, J: 1, K: 2, L: 3, M: 4, N: 5, P: 7, R: 9,
  S: 2, T: 3, U: 4, V: 5, W: 6, X: 7, Y: 8, Z: 9,
};
const VIN_CHARS = 'ABCDEFGHJKLMNPRSTUVWXYZ0123456789';
/** Model-year codes (position 10) for 2010-2030; the 30-year cycle skips I, O, Q, U, Z and 0. */
const YEAR_CODES = 'ABCDEFGHJKLMNPRSTVWXY';

function value(ch: string): number {
  if (ch >= '0' && ch <= '9') return ch.charCodeAt(0) - 48;
  const v = LETTER_VALUES[ch];
  if (v === undefined) throw new Error(`not a VIN character: ${ch}`);
  return v;
}

/** The check digit a 17-char VIN must carry at position 9 (its own position 9 is ignored). */
export function vinCheckDigit(vin: string): string {
  let sum = 0;
  for (let i = 0; i < 17; i++) sum += value(vin[i] as string) * (WEIGHTS[i] as number);
  const r = sum % 11;
  return r === 10 ? 'X' : String(r);
}

export function isValidVin(vin: string): boolean {
  return /^[A-HJ-NPR-Z0-9]{17}$/.test(vin) && vinCheckDigit(vin) === vin[8];
}

/**
 * Real descriptor sections (VIN positions 4-8) and plant codes of the catalog's models, by first
 * model year, checked against NHTSA vPIC with the enrichment context's decoder (issue 16), so a
 * simulated vehicle's VIN decodes to its real make and model: `${make} ${model}` → entries, the
 * newest whose `from` is at most the vehicle's year wins. Models without an entry (or years vPIC
 * does not cover) keep random descriptors: their VIN still decodes to the make (the WMI).
 */
const REAL_DESCRIPTORS: Readonly<Record<string, readonly { from: number; vds: string; plant: string; serialHead?: string }[]>> = {
  'Ford F-150': [{ from: 2015, vds: 'EW1EP', plant: 'F' }],
  'Ford Transit 250': [{ from: 2015, vds: 'YR2CM', plant: 'K' }],
  'Ford E-Transit': [{ from: 2017, vds: 'BW9CK', plant: 'K' }],
  'Chevrolet Silverado 2500HD': [
    { from: 2015, vds: '1KWE8', plant: 'F' },
    { from: 2020, vds: '4YPEY', plant: 'F' },
  ],
  'Ram ProMaster 2500': [{ from: 2015, vds: 'TRVDG', plant: 'E' }],
  'Toyota Tacoma': [{ from: 2015, vds: 'CZ5AN', plant: 'M' }],
  'Toyota Prius': [{ from: 2015, vds: 'KARFU', plant: '3' }],
  'Ford F-250 Super Duty': [{ from: 2015, vds: '7W2BT', plant: 'E' }],
  'Freightliner Cascadia': [{ from: 2015, vds: 'JGLDR', plant: 'L' }],
  'International LT625': [{ from: 2015, vds: 'DZAPR', plant: 'N' }],
  'Kenworth T680': [{ from: 2015, vds: 'YD49X', plant: 'J' }],
  'Peterbilt 579': [{ from: 2015, vds: 'BD49X', plant: 'D' }],
  'Volvo VNL 860': [{ from: 2015, vds: 'NC9EH', plant: 'N' }],
  // vPIC decodes this NPR descriptor's make only (its model patterns match the 1980s cycle: year
  // ambiguous); Isuzu's vPIC make patterns also read position 12.
  'Isuzu NPR-HD': [{ from: 2015, vds: 'C4W16', plant: '7', serialHead: '0' }],
};

/** The real descriptor of a model in a year, if the table has one. */
export function realDescriptor(makeAndModel: string, year: number): { vds: string; plant: string; serialHead?: string } | undefined {
  return REAL_DESCRIPTORS[makeAndModel]?.filter((e) => e.from <= year).at(-1);
}

/** A valid VIN of `wmi` and `year`; with `makeAndModel` in the table, its real descriptor and plant (the draws are the same either way). */
export function makeVin(wmi: string, year: number, draw: Stream, makeAndModel?: string): string {
  let vds = '';
  for (let i = 0; i < 5; i++) vds += draw.pick([...VIN_CHARS]);
  const yearCode = YEAR_CODES[(year - 2010) % YEAR_CODES.length] as string;
  let plant = draw.pick([...VIN_CHARS]);
  let serial = String(draw.int(0, 999_999)).padStart(6, '0');
  const real = makeAndModel === undefined ? undefined : realDescriptor(makeAndModel, year);
  if (real) {
    ({ vds, plant } = real);
    if (real.serialHead !== undefined) serial = `${real.serialHead}${serial.slice(1)}`;
  }
  const draft = `${wmi}${vds}0${yearCode}${plant}${serial}`;
  return `${draft.slice(0, 8)}${vinCheckDigit(draft)}${draft.slice(9)}`;
}
