import { describe, expect, it } from '@jest/globals';
import { CURSOR_PATTERN, DRIVER_SOURCE_ID_PATTERN, LICENSE_STATES, PHONE_PATTERN, isLicenseState } from './driver.js';
import { FUEL_TYPES, VEHICLE_METADATA_KEYS, vehicleMetadataSource } from './vehicle-metadata.js';

describe('driver vocabulary (spec 2.5)', () => {
  it('has exactly the license states of the spec text, in order', () => {
    const specText =
      'AL AK AS AZ AR CA CO CT DE FL GA GU HI ID IL IN IA KS KY LA ME MD MA MI MN MP MS MO MT NE NV NH NJ NM NY NC ND OH OK OR PA PR RI SC SD TN TX UT VT VA WA WV WI WY VI AB BC MB NB NL NS ON PE QC SK NT NU UM YT DC';
    expect([...LICENSE_STATES]).toEqual(specText.split(' '));
    expect(new Set(LICENSE_STATES).size).toBe(70);
    expect(isLicenseState('QC')).toBe(true);
    expect(isLicenseState('XX')).toBe(false);
  });
  it('has the id, phone and cursor patterns', () => {
    expect(new RegExp(DRIVER_SOURCE_ID_PATTERN).test('b4C11')).toBe(true);
    expect(new RegExp(DRIVER_SOURCE_ID_PATTERN).test(':x')).toBe(false);
    expect(new RegExp(PHONE_PATTERN).test('+15555550123')).toBe(true);
    expect(new RegExp(PHONE_PATTERN).test('+1 5555550123')).toBe(false);
    expect(new RegExp(CURSOR_PATTERN).test('abc_-9')).toBe(true);
  });
});

describe('vehicle metadata vocabulary (spec 2.3)', () => {
  it('has 15 keys and 12 fuel types', () => {
    expect(VEHICLE_METADATA_KEYS).toHaveLength(15);
    expect(new Set(VEHICLE_METADATA_KEYS).size).toBe(15);
    expect(FUEL_TYPES).toHaveLength(12);
  });
  it('names the metadata source per provider', () => {
    expect(vehicleMetadataSource('samsara')).toBe('samsara:vehicles');
    expect(vehicleMetadataSource('motive')).toBe('motive:vehicles');
    expect(vehicleMetadataSource('geotab')).toBe('geotab:Device');
  });
});
