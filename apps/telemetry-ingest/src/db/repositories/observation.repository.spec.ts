/** COPY text encoding of observation rows (the COPYs of ObservationRepository.write) and the UTC month of a reading. */
import { describe, expect, it } from '@jest/globals';
import { copyField, copyLine, monthOf, observationCopyLine } from './observation.repository.js';

describe('COPY text format', () => {
  it('escapes backslash, tab, newline and CR; NULL as \\N; objects as JSON', () => {
    expect(copyField(null)).toBe('\\N');
    expect(copyField(undefined)).toBe('\\N');
    expect(copyField('a\tb\nc\rd\\e')).toBe('a\\tb\\nc\\rd\\\\e');
    expect(copyField({ meters: 12.5, note: 'x\ty' })).toBe('{"meters":12.5,"note":"x\\\\ty"}');
    expect(copyField(0)).toBe('0');
    expect(copyField(-1.25e-7)).toBe('-1.25e-7');
    expect(copyLine(['a', null, 1.5, { v: 'b\\' }])).toBe('a\t\\N\t1.5\t{"v":"b\\\\\\\\"}\n');
  });

  it('writes an observation row in the column order of the COPY statement', () => {
    const line = observationCopyLine({
      connection_id: 'c',
      vehicle_id: 'vcl_1',
      metric: 'odometer',
      observed_at: '2026-01-01T00:00:00.000Z',
      source: 'samsara:obdOdometerMeters',
      provider: 'samsara',
      vehicle_source_id: '281474',
      value: { meters: 10 },
      value_num: 10,
      units: null,
      fetched_at: '2026-01-01T00:01:00.000Z',
      batch_id: 'b_1',
    });
    expect(line.split('\t')).toEqual(['c', 'vcl_1', 'odometer', '2026-01-01T00:00:00.000Z', 'samsara:obdOdometerMeters', 'samsara', '281474', '{"meters":10}', '10', '\\N', '2026-01-01T00:01:00.000Z', 'b_1\n']);
  });

  it('writes the same line as copyLine over the columns, also when the provider strings and values need escapes', () => {
    const row = {
      connection_id: '0b9f3c1e-2f4a-4d7e-9b1c-3a2e5f6d7c8b',
      vehicle_id: 'vcl_19MR191GTQHSC5A35941J1YYS2',
      metric: 'location',
      observed_at: '2026-01-01T00:00:00.123+01:00',
      source: 'geo\\tab\there',
      provider: 'geotab',
      vehicle_source_id: 'b\n1\r',
      value: { latitude: 1, longitude: 2, address: 'a\tb\\c' },
      value_num: null,
      units: { speed: 'km/h' },
      fetched_at: '2026-01-01T00:01:00.000Z',
      batch_id: 'b_0123456789-x',
    };
    const columns = ['connection_id', 'vehicle_id', 'metric', 'observed_at', 'source', 'provider', 'vehicle_source_id', 'value', 'value_num', 'units', 'fetched_at', 'batch_id'] as const;
    expect(observationCopyLine({ ...row, observed_ms: 1 })).toBe(copyLine(columns.map((c) => row[c])));
  });

  it('monthOf places a time in its UTC month', () => {
    expect(['2026-02-01T00:00:00Z', '2026-01-31T23:59:59Z', '2026-02-15T00:00:00+05:00'].map(monthOf)).toEqual(['2026-02', '2026-01', '2026-02']);
    // An offset time is placed by its UTC instant: 00:30 on March 1st at +01:00 is still February.
    expect(['2026-03-01T00:30:00+01:00', '2026-03-01T00:30:00.000Z'].map(monthOf)).toEqual(['2026-02', '2026-03']);
  });
});
