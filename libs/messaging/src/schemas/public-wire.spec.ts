/**
 * One timestamp format for every public response (public-wire.v1.ts, decision 0017): whatever
 * precision or offset a provider reported, the reply schema the responder answers through outputs
 * RFC 3339 UTC with exactly milliseconds, and the requester reads the same; keyset positions and
 * request filters keep their precision. Mutation tried: `.overwrite(toWireDateTime)` removed from
 * wireDateTimeV1 → the codec and schema cases fail (the provider's `…:23Z` reaches the client).
 */
import { describe, expect, it } from '@jest/globals';
import { toWireDateTime, WIRE_DATE_TIME_PATTERN } from '@switchyard/domain';
import { silentLogger } from '../logger.js';
import { answerRequest, decodeReply } from '../rpc-codec.js';
import { RPCS } from '../subjects.js';
import { z } from 'zod';
import { datasetStatusV1 } from './directory-read.v1.js';
import { getTripRequestV1, tripPositionV1, tripV1 } from './directory-read-trips.v1.js';
import { nextCursorLink, nextPageLink, wireDateTimeV1 } from './public-wire.v1.js';
import { syncPageV1 } from './sync-api.v1.js';

const WIRE = new RegExp(WIRE_DATE_TIME_PATTERN);

describe('toWireDateTime / wireDateTimeV1', () => {
  it.each([
    ['2026-11-24T10:15:23Z', '2026-11-24T10:15:23.000Z'],
    ['2026-11-24T10:15:23.5Z', '2026-11-24T10:15:23.500Z'],
    ['2026-11-24T10:15:23.123456Z', '2026-11-24T10:15:23.123Z'],
    ['2026-11-24T10:15:23.000Z', '2026-11-24T10:15:23.000Z'],
    ['2026-11-24T12:15:23+02:00', '2026-11-24T10:15:23.000Z'],
    ['2026-11-24T00:15:23.25-05:30', '2026-11-24T05:45:23.250Z'],
  ])('%s → %s', (input, wire) => {
    expect(toWireDateTime(input)).toBe(wire);
    expect(wireDateTimeV1.parse(input)).toBe(wire);
    expect(wire).toMatch(WIRE);
  });

  it('leaves what names no instant, or leaves the four-digit years, for the schema to refuse', () => {
    expect(toWireDateTime('not a time')).toBe('not a time');
    expect(toWireDateTime('9999-12-31T23:30:00-01:00')).toBe('9999-12-31T23:30:00-01:00');
    expect(wireDateTimeV1.safeParse('2026-11-24').success).toBe(false);
  });
});

describe('every timestamp of a reply leaves the responder in the wire format', () => {
  const trip = {
    id: 'trp_01JD3Y7Q8ZK5V2N4R6T8W0X2Y4',
    sourceId: 't-1',
    provider: 'samsara',
    vehicle: 'vcl_01JD3Y7Q8ZK5V2N4R6T8W0X2Y5',
    startedAt: '2026-11-24T10:15:23Z',
    endedAt: '2026-11-24T12:20:00.5+02:00',
    duration: 1000,
    metadata: { addedAt: '2026-11-24T10:30:00.000Z', modifiedAt: '2026-11-24T10:30:00Z' },
  } as const;
  const dataset = { status: 'available', fetchedAt: '2026-11-24T10:30:00Z', capturedAt: null, publishedAt: '2026-11-24T10:30:01.1Z', errorCode: null } as const;

  it('through the RPC codec (responder validates and encodes, requester decodes)', async () => {
    // A reply the codec parses (the trip read itself is a framed reply now: its producers write the wire form, checked below).
    const rpc = { subject: 'test.wire', request: getTripRequestV1, response: z.object({ dataset: datasetStatusV1, trip: tripV1 }).strict() };
    const request = { connectionId: '0b6c1d52-7a55-4c3a-9d0e-000000000001', tripId: trip.id, expand: { vehicle: false, driver: false } };
    const bytes = await answerRequest(rpc, () => Promise.resolve({ dataset, trip }), new TextEncoder().encode(JSON.stringify(request)), {}, silentLogger);
    const sent = JSON.parse(new TextDecoder().decode(bytes)) as { trip: Record<string, unknown>; dataset: Record<string, unknown> };
    expect(sent.trip).toMatchObject({ startedAt: '2026-11-24T10:15:23.000Z', endedAt: '2026-11-24T10:20:00.500Z', metadata: { modifiedAt: '2026-11-24T10:30:00.000Z' } });
    expect(sent.dataset).toMatchObject({ fetchedAt: '2026-11-24T10:30:00.000Z', publishedAt: '2026-11-24T10:30:01.100Z' });
    expect(decodeReply(rpc, bytes).trip.startedAt).toBe('2026-11-24T10:15:23.000Z');
  });

  it('a framed reply carries its body as the responder wrote it: meta checked, body bytes untouched', async () => {
    const rpc = RPCS.directory.trips.get;
    const request = { connectionId: '0b6c1d52-7a55-4c3a-9d0e-000000000001', tripId: trip.id, expand: { vehicle: false, driver: false } };
    const body = '{"id":"x","startedAt":"2026-11-24T10:15:23Z"}';
    const bytes = await answerRequest(rpc, () => Promise.resolve({ meta: {}, body }), new TextEncoder().encode(JSON.stringify(request)), {}, silentLogger);
    const reply = decodeReply(rpc, bytes);
    expect(new TextDecoder().decode(reply.body as Uint8Array)).toBe(body);
    // A meta outside its schema is the responder's internal_error, never sent.
    const refused = await answerRequest(rpc, () => Promise.resolve({ meta: { extra: 1 }, body } as never), new TextEncoder().encode(JSON.stringify(request)), {}, silentLogger);
    expect(() => decodeReply(rpc, refused)).toThrow(/internal_error/);
  });

  it('keyset positions keep their microseconds (a truncated position would repeat or skip rows)', () => {
    expect(tripPositionV1.parse({ startedAt: '2026-11-24T10:15:23.123456Z', id: trip.id }).startedAt).toBe('2026-11-24T10:15:23.123456Z');
  });
});

describe('the paging convention', () => {
  it('`next` is present while more follow and absent (never null) on the last page', () => {
    expect(nextPageLink('abc')).toEqual({ next: 'abc' });
    expect(nextPageLink(undefined)).toEqual({});
    expect(syncPageV1.safeParse({ syncs: [], next: null }).success).toBe(false);
    expect(syncPageV1.parse({ syncs: [] })).toEqual({ syncs: [] });
  });

  it('the spec-fixed `nextCursor` of Vehicles is null on the last page', () => {
    expect(nextCursorLink(undefined)).toEqual({ nextCursor: null });
    expect(nextCursorLink('abc')).toEqual({ nextCursor: 'abc' });
  });
});
