/** COPY text encoding of observation rows (the staging COPY of ObservationRepository.write). */
import { describe, expect, it } from '@jest/globals';
import { copyField, copyLine, monthsOf, observationCopyLine } from './observation.repository.js';

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

  it('monthsOf lists each UTC month once, sorted', () => {
    expect(monthsOf(['2026-02-01T00:00:00Z', '2026-01-31T23:59:59Z', '2026-02-15T00:00:00+05:00'])).toEqual(['2026-01', '2026-02']);
  });
});
