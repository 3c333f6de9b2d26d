/** The trip's driver (TripDriver, spec 2.7): plain strings where the spec says so, times only in the form the reply schema accepts. */
import { describe, expect, it } from '@jest/globals';
import { available } from '@switchyard/domain';
import { tripDriverV1 } from '@switchyard/messaging';
import type { DriverReadRow } from '../db/repositories/trips-read.repository.js';
import { tripDriver } from './trip.mapper.js';

const T = '2026-11-22T12:00:00.000Z';
const row = (fields: DriverReadRow['fields']): DriverReadRow => ({
  id: 'drv_01JD0000000000000000000000',
  source_id: 'd-1',
  provider: 'motive',
  status: 'active',
  fields,
  added_at: T,
  modified_at: T,
});

describe('tripDriver', () => {
  it('keeps email, phone and license state as plain strings (no format in a TripDriver)', () => {
    const d = tripDriver(row({ email: available('not-an-email', 's'), phone: available('555-0100', 's'), licenseState: available('XX', 's') }))!;
    expect(d).toMatchObject({ email: 'not-an-email', phone: '555-0100', license: { state: 'XX' } });
    expect(tripDriverV1.parse(d)).toEqual(d);
  });

  it('omits a time the reply schema refuses instead of failing the page (RFC 3339 also allows lowercase t/z and leap seconds)', () => {
    const d = tripDriver(row({ createdAt: available('2024-01-02t03:04:05z', 's'), updatedAt: available('2024-01-02T03:04:60Z', 's') }))!;
    expect(d).not.toHaveProperty('createdAt');
    expect(d).not.toHaveProperty('updatedAt');
    expect(tripDriverV1.safeParse(d).success).toBe(true);
    // A provider's whole-second time is served in the wire format (UTC, milliseconds; decision 0017).
    expect(tripDriver(row({ createdAt: available('2024-01-02T03:04:05Z', 's') }))!.createdAt).toBe('2024-01-02T03:04:05.000Z');
  });
});
