import { describe, expect, it } from '@jest/globals';
import { RESPONSE_BYTE_LIMIT } from '@switchyard/contracts';
import { vehicleId } from '@switchyard/domain';
import { ApiError } from '../http/api-error.js';
import { NATS_MAX_PAYLOAD_BYTES, parseExpand, parseIdList, parseWindow, READ_ENVELOPE_RESERVE, resultsByteBudget } from './read-query.js';

const v = (s: string) => vehicleId({ connectionId: '22222222-2222-4222-8222-222222222222', provider: 'samsara', sourceId: s });
const refused = (fn: () => unknown) => expect(fn).toThrow(new ApiError('invalid_query'));

describe('read query parsing', () => {
  it('parses id lists sorted and deduplicated, at most max, refusing malformed ids', () => {
    expect(parseIdList(undefined, 'vehicle', 2)).toEqual([]);
    expect(parseIdList(`${v('b')},${v('a')},${v('b')}`, 'vehicle', 2)).toEqual([v('a'), v('b')].sort());
    refused(() => parseIdList(`${v('a')},${v('b')},${v('c')}`, 'vehicle', 2));
    refused(() => parseIdList(`${v('a')},`, 'vehicle', 2));
    refused(() => parseIdList('drv_x', 'vehicle', 2));
  });

  it('parses expand as a subset of the allowed references', () => {
    expect(parseExpand(undefined, ['vehicle', 'driver'])).toEqual({ vehicle: false, driver: false });
    expect(parseExpand('driver', ['vehicle', 'driver'])).toEqual({ vehicle: false, driver: true });
    refused(() => parseExpand('groups', ['vehicle', 'driver']));
  });

  it('accepts a window of real instants with from before to', () => {
    expect(parseWindow('2026-11-01T00:00:00Z', undefined)).toEqual({ from: '2026-11-01T00:00:00Z' });
    refused(() => parseWindow('2026-11-02T00:00:00Z', '2026-11-01T00:00:00Z'));
    refused(() => parseWindow('2026-11-01T00:00:00Z', '2026-11-01T00:00:00Z'));
    refused(() => parseWindow('2026-02-30T00:00:00Z', undefined));
    // RFC 3339 allows these, the directory request schema does not: before, they passed here and failed on the bus (500).
    refused(() => parseWindow('2026-11-01t00:00:00z', undefined));
    refused(() => parseWindow(undefined, '2026-11-01T00:00:00z'));
  });

  it('leaves the envelope reserve out of the results budget, within the bus payload limit', () => {
    expect(resultsByteBudget(RESPONSE_BYTE_LIMIT, 8 * 1024 * 1024)).toBe(RESPONSE_BYTE_LIMIT - READ_ENVELOPE_RESERVE);
    expect(resultsByteBudget(RESPONSE_BYTE_LIMIT)).toBe(NATS_MAX_PAYLOAD_BYTES - READ_ENVELOPE_RESERVE);
    expect(resultsByteBudget(20_000)).toBe(20_000 - READ_ENVELOPE_RESERVE);
  });
});
