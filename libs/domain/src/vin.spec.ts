import { describe, expect, it } from '@jest/globals';
import { checkVin, latestModelYear, normalizeVin, positionSevenRuleApplies, vinCheckDigit, vinModelYearCandidates } from './vin.js';

// Real-world VIN patterns (WMI + descriptor of real vehicles; serials made up, check digits valid).
const VALID = {
  hondaAccord2003: '1HGCM82633A004352', // USA, the classic NHTSA example
  vwBeetleMexico2004: '3VWFE21C04M000001', // Mexico
  chevroletMalibu2006: '1G1ZT53826F109149', // USA
  teslaModel3_2019: '5YJ3E1EA2KF317000', // USA
  bmw328i2012: 'WBA3A5C53CF256551', // Germany
  mercedesC300_2013: 'WDDGF8AB5DR123456', // Germany
  audiA4_2006: 'WAUAF78EX6A012345', // Germany, check digit X
  volvoS40_2006: 'YV1MS382662123456', // Sweden
  landRover2019: 'SALWR2RV9KA123456', // United Kingdom
  hyundaiAccent2012: 'KMHCT4AE0CU123456', // Korea
  toyotaCorollaCanada2018: '2T1BURHE8JC123456', // Canada
  kenworthW900_2010: '1XKWD49X3AJ123457', // USA, heavy truck
  // Issue 31: light trucks of the sandbox whose year vPIC's patterns do not decide.
  toyotaTacoma2024: '3TMCZ5AN2RM515991', // Mexico, GVWR class 1-2
  fordF150_2025: '1FTEW1EP4SF419093', // USA, class 2E
  fordF150_2015: '1FTDHMLL0F3370117', // USA, class 1D (position 7 'L')
  isuzuNprHd2017: 'JALC4W163H7057298', // Japan, incomplete vehicle, class 4
};

describe('checkVin', () => {
  it('accepts valid VINs of several manufacturers, regions and model years', () => {
    for (const vin of Object.values(VALID)) expect(checkVin(vin)).toEqual({ status: 'valid', vin, wmi: vin.slice(0, 3), checksum: true });
  });

  it('computes the check digit of position 9, X for 10', () => {
    expect(vinCheckDigit(VALID.hondaAccord2003)).toBe('3');
    expect(vinCheckDigit(VALID.audiA4_2006)).toBe('X');
    expect(vinCheckDigit('1HGCM8263')).toBeUndefined();
  });

  it('refuses a wrong check digit, never repairing it', () => {
    expect(checkVin('1HGCM82643A004352')).toEqual({ status: 'invalid', vin: '1HGCM82643A004352', reason: 'vin_check_digit', checksum: false });
    // A European-only VIN without a check digit (ZZZ filler, Z at position 9) is not decodable offline.
    expect(checkVin('WVWZZZ1JZXW000001')).toMatchObject({ status: 'invalid', reason: 'vin_check_digit' });
  });

  it('refuses wrong lengths', () => {
    expect(checkVin('1HGCM82633A00435')).toMatchObject({ status: 'invalid', reason: 'vin_length', checksum: null });
    expect(checkVin('1HGCM82633A0043521')).toMatchObject({ status: 'invalid', reason: 'vin_length' });
    expect(checkVin('1HGCM826')).toMatchObject({ status: 'invalid', reason: 'vin_length' });
  });

  it('refuses the letters I, O and Q and any other character, even with the check digit they would give', () => {
    for (const letter of ['I', 'O', 'Q']) {
      const vin = `1HGCM82633A${letter}04352`;
      expect(checkVin(vin)).toEqual({ status: 'invalid', vin, reason: 'vin_characters', checksum: null });
    }
    expect(checkVin('1HGCM82633A-04352')).toMatchObject({ status: 'invalid', reason: 'vin_characters' });
  });

  it('accepts lowercase and surrounding blanks, reporting the normalized VIN', () => {
    expect(checkVin('  1hgcm82633a004352 ')).toEqual({ status: 'valid', vin: '1HGCM82633A004352', wmi: '1HG', checksum: true });
    expect(normalizeVin(' wba3a5c53cf256551')).toBe('WBA3A5C53CF256551');
  });

  it('reports a missing VIN as missing', () => {
    expect(checkVin(null)).toEqual({ status: 'missing' });
    expect(checkVin(undefined)).toEqual({ status: 'missing' });
    expect(checkVin('   ')).toEqual({ status: 'missing' });
  });
});

describe('vinModelYearCandidates', () => {
  const now = { latestYear: latestModelYear(new Date('2026-11-26T00:00:00Z')), positionSevenRule: true };

  it('takes next year as the latest model year', () => {
    expect(now.latestYear).toBe(2027);
  });

  it('uses position 7 to pick the cycle of a light vehicle: a digit → 1980-2009, a letter → 2010-2039', () => {
    expect(vinModelYearCandidates(VALID.hondaAccord2003, now)).toEqual({ years: [2003], ambiguous: false });
    expect(vinModelYearCandidates(VALID.teslaModel3_2019, now)).toEqual({ years: [2019], ambiguous: false });
    expect(vinModelYearCandidates(VALID.bmw328i2012, now)).toEqual({ years: [2012], ambiguous: false });
    expect(vinModelYearCandidates(VALID.hyundaiAccent2012, now)).toEqual({ years: [2012], ambiguous: false });
  });

  it('keeps both cycles when position 7 does not apply (heavy trucks) and both years exist', () => {
    expect(vinModelYearCandidates(VALID.kenworthW900_2010, { ...now, positionSevenRule: false })).toEqual({ years: [1980, 2010], ambiguous: true });
  });

  it('drops a second-cycle year after next year: a 2006 code is 2006 whatever position 7 says', () => {
    expect(vinModelYearCandidates(VALID.audiA4_2006, { ...now, positionSevenRule: false })).toEqual({ years: [2006], ambiguous: false });
    expect(vinModelYearCandidates(VALID.chevroletMalibu2006, now)).toEqual({ years: [2006], ambiguous: false });
  });

  // mutation: positionSevenRuleApplies true only for passenger cars and MPVs (as before issue 31) → the three light trucks stay [year - 30, year].
  it('applies the rule to light trucks (GVWR class 1-2), so their letter at position 7 picks 2010-2039', () => {
    const light = { ...now, positionSevenRule: positionSevenRuleApplies({ type: 'truck', gvwrClasses: [1, 2] }) };
    expect(vinModelYearCandidates(VALID.toyotaTacoma2024, light)).toEqual({ years: [2024], ambiguous: false });
    expect(vinModelYearCandidates(VALID.fordF150_2025, light)).toEqual({ years: [2025], ambiguous: false });
    expect(vinModelYearCandidates(VALID.fordF150_2015, light)).toEqual({ years: [2015], ambiguous: false });
  });

  it('leaves heavy, mixed or unknown-weight trucks and other types to other evidence', () => {
    expect(positionSevenRuleApplies({ type: 'passenger_car', gvwrClasses: [] })).toBe(true);
    expect(positionSevenRuleApplies({ type: 'mpv', gvwrClasses: [] })).toBe(true);
    expect(positionSevenRuleApplies({ type: 'truck', gvwrClasses: [2] })).toBe(true);
    expect(positionSevenRuleApplies({ type: 'truck', gvwrClasses: [2, 3] })).toBe(false);
    expect(positionSevenRuleApplies({ type: 'truck', gvwrClasses: [8] })).toBe(false);
    expect(positionSevenRuleApplies({ type: 'truck', gvwrClasses: [] })).toBe(false);
    expect(positionSevenRuleApplies({ type: 'other', gvwrClasses: [4] })).toBe(false);
    const heavy = { ...now, positionSevenRule: positionSevenRuleApplies({ type: 'other', gvwrClasses: [4] }) };
    expect(vinModelYearCandidates(VALID.isuzuNprHd2017, heavy)).toEqual({ years: [1987, 2017], ambiguous: true });
  });

  it('knows the year codes across the cycle (no I, O, Q, U, Z or 0)', () => {
    const at = (code: string) => vinModelYearCandidates(`1HGCM8263${code}A004352`, { latestYear: 2040, positionSevenRule: false }).years;
    expect(at('A')).toEqual([1980, 2010]);
    expect(at('Y')).toEqual([2000, 2030]);
    expect(at('1')).toEqual([2001, 2031]);
    expect(at('9')).toEqual([2009, 2039]);
    expect(at('U')).toEqual([]);
    expect(at('0')).toEqual([]);
  });
});
