/**
 * The identity product on the real vPIC data the package ships (unpacked once into VPIC_CACHE_DIR or
 * the OS temp directory): real-world VIN patterns of several manufacturers, regions and model years,
 * and every refusal. Mutation tried: the vPIC year check removed (`known.length === 1` never true) →
 * the Kenworth (a heavy truck: no position-7 rule) loses its year. The position-7 rule itself is
 * libs/domain vin.spec.ts (mutation: the cycle inverted → 3 failures); which trucks it covers (GVWR
 * ≤ 10,000 lb from vPIC) is tested here.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { vinCheckDigit } from '@switchyard/domain';
import { VinIdentityDecoder } from './vin-identity.decoder.js';
import { VpicDatabase } from './vpic-database.js';

const NOW = new Date('2026-11-26T00:00:00Z');
let database: VpicDatabase;
let decoder: VinIdentityDecoder;

beforeAll(async () => {
  database = await VpicDatabase.open();
  decoder = new VinIdentityDecoder(database);
}, 60_000);

afterAll(() => database.close());

const decode = (vin: string | null) => decoder.decode(vin, NOW);

describe('VinIdentityDecoder', () => {
  it.each([
    ['1HGCM82633A004352', 2003, 'Honda', 'Accord', 'AMERICAN HONDA MOTOR CO., INC.'],
    ['5YJ3E1EA2KF317000', 2019, 'Tesla', 'Model 3', 'TESLA, INC.'],
    ['1FTEW1EP2LFA12345', 2020, 'Ford', 'F-150', 'FORD MOTOR COMPANY'],
    ['3VWFE21C04M000001', 2004, 'Volkswagen', 'Beetle', 'VOLKSWAGEN DE MEXICO SA DE CV'],
    ['WBA3A5C53CF256551', 2012, 'BMW', '328i', 'BMW AG'],
    ['WDDGF8AB5DR123456', 2013, 'Mercedes-Benz', 'C-Class', null],
    ['WAUAF78EX6A012345', 2006, 'Audi', 'A4', null],
    ['SALWR2RV9KA123456', 2019, 'Land Rover', 'Range Rover Sport', null],
    ['KMHCT4AE0CU123456', 2012, 'Hyundai', 'Accent', null],
  ])('decodes %s as a %i %s %s', async (vin, year, make, model, manufacturer) => {
    const outcome = await decode(vin);
    expect(outcome.status).toBe('available');
    expect(outcome.errorCode).toBeNull();
    expect(outcome.data).toMatchObject({ vin, year, make, model, vinValid: true, checksum: true, yearAmbiguous: false });
    if (manufacturer !== null) expect(outcome.data?.manufacturer).toBe(manufacturer);
  }, 30_000);

  it('reports trim, style, body and engine where vPIC has them', async () => {
    const honda = await decode('1HGCM82633A004352');
    expect(honda.data).toMatchObject({ trim: 'EX-V6', body: 'Coupe', ambiguous: false });
    expect(honda.data?.engine).toContain('6 cylinders');
    const bmw = await decode('WBA3A5C53CF256551');
    expect(bmw.data).toMatchObject({ style: '3-Series' });
  }, 30_000);

  it('marks a trim vPIC states as alternatives as ambiguous, keeping its text', async () => {
    const corolla = await decode('2T1BURHE8JC123456');
    expect(corolla.data).toMatchObject({ year: 2018, make: 'Toyota', model: 'Corolla', trim: 'L/LE/SE/XLE/XSE', ambiguous: true });
  }, 30_000);

  it('resolves a heavy truck\'s 30-year cycle with vPIC (no model in 1980), not with position 7', async () => {
    const kenworth = await decode('1XKWD49X3AJ123457');
    expect(kenworth.data).toMatchObject({ year: 2010, make: 'Kenworth', model: 'W9 Series', yearAmbiguous: false });
  }, 30_000);

  // Issue 31: vPIC has no patterns for these descriptors in either cycle; position 7 (a letter) decides, for light trucks only.
  // mutation: lightTruck always false (the rule for passenger cars and MPVs only, as before) → year null, yearAmbiguous.
  it.each([
    ['3TMCZ5AN2RM515991', 2024, 'Toyota'], // Tacoma: no GVWR for its descriptor, every GVWR of WMI 3TM is class 1-2
    ['1FTEW1EP4SF419093', 2025, 'Ford'], // F-150: its descriptor is class 2E
    ['1FTDHMLL0F3370117', 2015, 'Ford'], // its descriptor is class 1D
  ])('gives the light truck %s the year position 7 picks (%i)', async (vin, year, make) => {
    const outcome = await decode(vin);
    expect(outcome).toMatchObject({ status: 'available', errorCode: null, data: { vin, year, make, yearAmbiguous: false } });
  }, 30_000);

  // mutation: the `missing` branch removed → `available` with make, model and year all null.
  it('never picks one of several makes a WMI is registered for, nor an older cycle only vPIC\'s coarse 1980s schemas match: missing, vin_ambiguous', async () => {
    // JAL (Chevrolet, Hino, Isuzu), an incomplete vehicle of class 4 (no position-7 rule): the 2017 NPR descriptor matches only a 1987 schema.
    for (const vin of ['JALC4W166H7028085', 'JALC4W163H7057298']) {
      const isuzu = await decode(vin);
      expect(isuzu).toMatchObject({ status: 'missing', errorCode: 'vin_ambiguous' });
      expect(isuzu.data).toMatchObject({ make: null, model: null, year: null, yearAmbiguous: true, ambiguous: true, vinValid: true, manufacturer: 'ISUZU MOTORS LIMITED, JAPAN' });
    }
  }, 30_000);

  it('accepts lowercase input and reports the upper-cased VIN', async () => {
    const outcome = await decode(' 1hgcm82633a004352');
    expect(outcome.data).toMatchObject({ vin: '1HGCM82633A004352', make: 'Honda', model: 'Accord' });
  }, 30_000);

  it('is missing_vin without a VIN', async () => {
    expect(await decode(null)).toEqual({ status: 'missing_vin', data: null, errorCode: null });
    expect(await decode('  ')).toEqual({ status: 'missing_vin', data: null, errorCode: null });
  });

  it('is invalid_vin for a wrong check digit, a wrong length or I/O/Q, never decoded', async () => {
    const wrongDigit = await decode('1HGCM82643A004352');
    expect(wrongDigit).toMatchObject({ status: 'invalid_vin', errorCode: 'vin_check_digit' });
    expect(wrongDigit.data).toMatchObject({ vin: '1HGCM82643A004352', vinValid: false, checksum: false, make: null, model: null, year: null });
    expect(await decode('1HGCM82633A00435')).toMatchObject({ status: 'invalid_vin', errorCode: 'vin_length', data: { checksum: null } });
    expect(await decode('1HGCM82633AO04352')).toMatchObject({ status: 'invalid_vin', errorCode: 'vin_characters' });
    expect(await decode('WVWZZZ1JZXW000001')).toMatchObject({ status: 'invalid_vin', errorCode: 'vin_check_digit' });
  });

  it('is missing, with only the verdict and the year, for a valid VIN whose WMI vPIC does not know', async () => {
    // 'Z99' is no registered WMI; the check digit is made valid.
    const vin = `Z99AB123${vinCheckDigit('Z99AB1230JC123456') ?? ''}JC123456`;
    const outcome = await decode(vin);
    expect(outcome.status).toBe('missing');
    expect(outcome.errorCode).toBe('wmi_unknown');
    expect(outcome.data).toMatchObject({ make: null, model: null, manufacturer: null, vinValid: true, checksum: true });
  }, 30_000);
});
