import { describe, expect, it } from '@jest/globals';
import { RESPONSE_BYTE_LIMIT } from '@switchyard/contracts';
import { vehicleId } from '@switchyard/domain';
import { ApiError } from '../http/api-error.js';
import { NATS_MAX_PAYLOAD_BYTES, parseExpand, parseIdList, parseWindow, READ_ENVELOPE_RESERVE, resultsByteBudget } from './read-query.js';

const v = (s: string) => vehicleId({ connectionId: '22222222-2222-4222-8222-222222222222', provider: 'samsara', sourceId: s });
const refused = (fn: () => unknown) => expect(fn).toThrow(new ApiError('invalid_query'));
/** The detail the refusal names (http/error-detail.ts). */
function detailOf(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    return (error as ApiError).detail;
  }
  throw new Error('not refused');
}

describe('read query parsing', () => {
  it('parses id lists sorted and deduplicated, at most max, refusing malformed ids', () => {
    expect(parseIdList(undefined, 'vehicle', 2)).toEqual([]);
    expect(parseIdList(`${v('b')},${v('a')},${v('b')}`, 'vehicle', 3)).toEqual([v('a'), v('b')].sort());
    refused(() => parseIdList(`${v('a')},${v('b')},${v('c')}`, 'vehicle', 2));
    refused(() => parseIdList(`${v('a')},`, 'vehicle', 2));
    refused(() => parseIdList('drv_x', 'vehicle', 2));
  });

  it('counts the items as sent, repeats included, before de-duplicating (issue 18 item 8)', () => {
    expect(detailOf(() => parseIdList(`${v('a')},${v('a')},${v('a')}`, 'vehicle', 2))).toEqual({ in: 'query', name: 'vehicleIds', reason: 'too_many' });
    expect(parseIdList(`${v('a')},${v('a')}`, 'vehicle', 2)).toEqual([v('a')]);
  });

  it('reads a Crockford body in either case and hands on the canonical uppercase id', () => {
    const lower = `vcl_${v('a').slice(4).toLowerCase()}`;
    expect(parseIdList(`${lower},${v('a')}`, 'vehicle', 2)).toEqual([v('a')]);
    expect(detailOf(() => parseIdList(`VCL_${v('a').slice(4)}`, 'vehicle', 2))).toEqual({ in: 'query', name: 'vehicleIds', reason: 'malformed' });
  });

  it('parses expand as a subset of the allowed references', () => {
    expect(parseExpand(undefined, ['vehicle', 'driver'])).toEqual({ vehicle: false, driver: false });
    expect(parseExpand('driver', ['vehicle', 'driver'])).toEqual({ vehicle: false, driver: true });
    refused(() => parseExpand('groups', ['vehicle', 'driver']));
    expect(detailOf(() => parseExpand('vehicle,', ['vehicle', 'driver']))).toEqual({ in: 'query', name: 'expand', reason: 'empty_item' });
  });

  it('accepts a repeated expand value as once, like a repeated id', () => {
    expect(parseExpand('vehicle,vehicle', ['vehicle', 'driver'])).toEqual({ vehicle: true, driver: false });
  });

  it('accepts a window of real instants with from before to', () => {
    expect(parseWindow('2026-11-01T00:00:00Z', undefined)).toEqual({ from: '2026-11-01T00:00:00.000Z' });
    refused(() => parseWindow('2026-11-02T00:00:00Z', '2026-11-01T00:00:00Z'));
    refused(() => parseWindow('2026-11-01T00:00:00Z', '2026-11-01T00:00:00Z'));
    refused(() => parseWindow('2026-02-30T00:00:00Z', undefined));
  });

  it('reads a date-time as the sync body does: either case, any offset, handed on in canonical UTC form (issue 18 item 8)', () => {
    expect(parseWindow('2026-11-01t00:00:00z', '2026-11-02T02:00:00+02:00')).toEqual({ from: '2026-11-01T00:00:00.000Z', to: '2026-11-02T00:00:00.000Z' });
    expect(detailOf(() => parseWindow('2026-11-01T00:00:00 02:00', undefined))).toEqual({ in: 'query', name: 'from', reason: 'unencoded_plus' });
    expect(detailOf(() => parseWindow(undefined, '2026-11-01T23:59:60Z'))).toEqual({ in: 'query', name: 'to', reason: 'malformed' });
    expect(detailOf(() => parseWindow('2026-11-02T00:00:00Z', '2026-11-01T00:00:00Z'))).toEqual({ in: 'query', name: 'from', reason: 'not_before_to' });
  });

  it.each(['0000-01-01T00:00:00Z', '0001-01-01T00:30:00+01:00', '0001-01-01T23:59:59.999Z', '9999-12-31T00:00:00Z', '9999-12-30T23:59:59.999-00:01'])('refuses %s, outside the years PostgreSQL and the wire form hold (issue 18 item 3)', (value) => {
    expect(detailOf(() => parseWindow(value, undefined))).toEqual({ in: 'query', name: 'from', reason: 'out_of_range' });
  });

  it('accepts the first and last instants of the range', () => {
    expect(parseWindow('0001-01-02T00:00:00Z', '9999-12-30T23:59:59.999Z')).toEqual({ from: '0001-01-02T00:00:00.000Z', to: '9999-12-30T23:59:59.999Z' });
  });

  it('leaves the envelope reserve out of the results budget, within the bus payload limit', () => {
    expect(resultsByteBudget(RESPONSE_BYTE_LIMIT, 8 * 1024 * 1024)).toBe(RESPONSE_BYTE_LIMIT - READ_ENVELOPE_RESERVE);
    expect(resultsByteBudget(RESPONSE_BYTE_LIMIT)).toBe(NATS_MAX_PAYLOAD_BYTES - READ_ENVELOPE_RESERVE);
    expect(resultsByteBudget(20_000)).toBe(20_000 - READ_ENVELOPE_RESERVE);
  });
});
