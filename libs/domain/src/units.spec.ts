import { describe, expect, it } from '@jest/globals';
import {
  checkRange,
  checkTripDistance,
  millivoltsToVolts,
  parseTimeSpan,
  toMeters,
  toMetersPerSecond,
  toSeconds,
  toTripKilometers,
  toTripMilliseconds,
  toVolts,
} from './units.js';

describe('toMeters', () => {
  it('keeps meters without a conversion record', () => {
    expect(toMeters(412345678, 'meters')).toEqual({ ok: true, value: 412345678 });
  });
  it('converts kilometers and records the factor', () => {
    expect(toMeters(412345.7, 'kilometers')).toEqual({
      ok: true,
      value: 412345700,
      units: { source: 'kilometers', normalized: 'meters', factor: 1000 },
    });
    expect(toMeters(1.1, 'kilometers')).toMatchObject({ value: 1100 }); // not 1100.0000000000002
  });
  it('converts miles with the exact international mile', () => {
    expect(toMeters(1, 'miles')).toEqual({ ok: true, value: 1609.344, units: { source: 'miles', normalized: 'meters', factor: 1609.344 } });
    expect(toMeters(100, 'miles')).toMatchObject({ value: 160934.4 });
  });
  it('keeps a real zero', () => {
    expect(toMeters(0, 'kilometers')).toMatchObject({ ok: true, value: 0 });
  });
  it('never turns bad input into a number', () => {
    expect(toMeters(null, 'meters')).toEqual({ ok: false, status: 'missing' });
    expect(toMeters(undefined, 'miles')).toEqual({ ok: false, status: 'missing' });
    expect(toMeters(-1, 'meters')).toEqual({ ok: false, status: 'invalid', reason: 'negative' });
    expect(toMeters(Number.NaN, 'meters')).toEqual({ ok: false, status: 'invalid', reason: 'non_finite' });
    expect(toMeters(Number.POSITIVE_INFINITY, 'kilometers')).toEqual({ ok: false, status: 'invalid', reason: 'non_finite' });
    expect(toMeters('12', 'meters')).toEqual({ ok: false, status: 'invalid', reason: 'not_a_number' });
  });
});

describe('toSeconds', () => {
  it('keeps seconds without a conversion record', () => {
    expect(toSeconds(36025200, 'seconds')).toEqual({ ok: true, value: 36025200 });
  });
  it('converts milliseconds (Samsara idlingDurationMilliseconds)', () => {
    expect(toSeconds(1500, 'milliseconds')).toEqual({
      ok: true,
      value: 1.5,
      units: { source: 'milliseconds', normalized: 'seconds', factor: 0.001 },
    });
    expect(toSeconds(3, 'milliseconds')).toMatchObject({ value: 0.003 });
  });
  it('converts decimal hours (Motive engine_hours)', () => {
    expect(toSeconds(10007.5, 'hours')).toEqual({ ok: true, value: 36027000, units: { source: 'hours', normalized: 'seconds', factor: 3600 } });
    expect(toSeconds(0.1, 'hours')).toMatchObject({ value: 360 });
  });
  it('rejects negative and non-finite counters', () => {
    expect(toSeconds(-0.5, 'hours')).toEqual({ ok: false, status: 'invalid', reason: 'negative' });
    expect(toSeconds(Number.NaN, 'seconds')).toMatchObject({ ok: false, status: 'invalid' });
  });
});

describe('trip units', () => {
  it('gives kilometers', () => {
    expect(toTripKilometers(140.23, 'kilometers')).toEqual({ ok: true, value: 140.23 });
    expect(toTripKilometers(140230, 'meters')).toEqual({ ok: true, value: 140.23 });
    expect(toTripKilometers(10, 'miles')).toEqual({ ok: true, value: 16.09344 });
    expect(toTripKilometers(-3, 'meters')).toMatchObject({ ok: false, status: 'invalid' });
  });
  it('gives milliseconds', () => {
    expect(toTripMilliseconds(11270, 'seconds')).toEqual({ ok: true, value: 11270000 });
    expect(toTripMilliseconds(1.5, 'hours')).toEqual({ ok: true, value: 5400000 });
    expect(toTripMilliseconds(250, 'milliseconds')).toEqual({ ok: true, value: 250 });
    expect(toTripMilliseconds(null, 'seconds')).toEqual({ ok: false, status: 'missing' });
  });
  it('refuses a distance implying more than 300 km/h over the driving time (mutation: the check dropped → these fail)', () => {
    const h = 3_600_000;
    // The Geotab demo record: 113,276.75 "km" in 01:27:41.
    expect(checkTripDistance(113_276.75, 5_261_000)).toEqual({ ok: false, status: 'invalid', reason: 'implausible_speed' });
    expect(checkTripDistance(113.27675, 5_261_000)).toEqual({ ok: true, value: 113.27675 });
    expect(checkTripDistance(300, h)).toEqual({ ok: true, value: 300 });
    expect(checkTripDistance(300.001, h)).toMatchObject({ ok: false, reason: 'implausible_speed' });
    // A zero-duration trip (a live Geotab record) allows 0 km only.
    expect(checkTripDistance(0, 0)).toEqual({ ok: true, value: 0 });
    expect(checkTripDistance(0.01, 0)).toMatchObject({ ok: false, reason: 'implausible_speed' });
  });
});

describe('speed and voltage', () => {
  it('converts mph and km/h to m/s', () => {
    expect(toMetersPerSecond(41.6, 'miles_per_hour')).toEqual({ ok: true, value: 18.596864 });
    expect(toMetersPerSecond(36, 'kilometers_per_hour')).toEqual({ ok: true, value: 10 });
    expect(toMetersPerSecond(67, 'kilometers_per_hour')).toEqual({ ok: true, value: 18.6111111111111 });
    expect(toMetersPerSecond(3, 'meters_per_second')).toEqual({ ok: true, value: 3 });
    expect(toMetersPerSecond(-1, 'kilometers_per_hour')).toMatchObject({ ok: false, reason: 'negative' });
  });
  it('converts millivolts to volts', () => {
    expect(millivoltsToVolts(13900)).toEqual({ ok: true, value: 13.9 });
    expect(toVolts(13.8, 'volts')).toEqual({ ok: true, value: 13.8 });
    expect(millivoltsToVolts(undefined)).toEqual({ ok: false, status: 'missing' });
  });
  it('checks ranges', () => {
    expect(checkRange(360, 0, 360)).toEqual({ ok: true, value: 360 });
    expect(checkRange(360.5, 0, 360)).toEqual({ ok: false, status: 'invalid', reason: 'out_of_range' });
    expect(checkRange(null, 0, 100)).toEqual({ ok: false, status: 'missing' });
  });
});

describe('Geotab TimeSpan', () => {
  it('parses hh:mm:ss', () => {
    expect(parseTimeSpan('03:07:50')).toEqual({ ok: true, value: 11270 });
    expect(parseTimeSpan('00:00:00')).toEqual({ ok: true, value: 0 });
  });
  it('parses days and the 7-digit fraction', () => {
    expect(parseTimeSpan('1.02:03:04.5670000')).toEqual({ ok: true, value: 93784.567 });
    expect(parseTimeSpan('00:00:04.5')).toEqual({ ok: true, value: 4.5 });
    expect(parseTimeSpan('00:00:00.0000001')).toEqual({ ok: true, value: 1e-7 });
    expect(parseTimeSpan('10675199.02:48:05.4775807')).toMatchObject({ ok: true });
  });
  it('returns invalid for malformed input', () => {
    for (const bad of ['', '3:07:50', '03:07', '24:00:00', '00:60:00', '00:00:60', '-00:00:01', '1.2.03:00:00', '00:00:00.12345678', 'PT3H', ' 03:07:50'] as const) {
      expect(parseTimeSpan(bad)).toEqual({ ok: false, status: 'invalid', reason: 'malformed' });
    }
    expect(parseTimeSpan(11270)).toEqual({ ok: false, status: 'invalid', reason: 'malformed' });
    expect(parseTimeSpan(null)).toEqual({ ok: false, status: 'missing' });
  });
});
