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

export function makeVin(wmi: string, year: number, draw: Stream): string {
  let vds = '';
  for (let i = 0; i < 5; i++) vds += draw.pick([...VIN_CHARS]);
  const yearCode = YEAR_CODES[(year - 2010) % YEAR_CODES.length] as string;
  const plant = draw.pick([...VIN_CHARS]);
  const serial = String(draw.int(0, 999_999)).padStart(6, '0');
  const draft = `${wmi}${vds}0${yearCode}${plant}${serial}`;
  return `${draft.slice(0, 8)}${vinCheckDigit(draft)}${draft.slice(9)}`;
}
