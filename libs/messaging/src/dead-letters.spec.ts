/**
 * `summaryOf`: a dead letter as a list shows it (the dead-letter role's `dead-letters.list`, decision
 * 0046) — no payload, its byte size in either encoding, the detail cut to DEAD_LETTER_DETAIL_CHARS,
 * and the result valid for the reply schema (so a reply of DEAD_LETTER_LIST_LIMIT stays small).
 */
import { describe, expect, it } from '@jest/globals';
import { summaryOf } from './dead-letters.js';
import { DEAD_LETTER_DETAIL_CHARS, deadLetterSummaryV1 } from './schemas/dead-letter-ops.v1.js';
import type { DeadLetterV1 } from './schemas/dead-letter.v1.js';

const envelope = (over: Partial<DeadLetterV1>): DeadLetterV1 => ({
  originalSubject: 'ingest.directory.c1',
  stream: 'INGEST',
  consumer: 'directory-ingest',
  streamSequence: 7,
  reason: 'schema_invalid',
  deliveryCount: 1,
  failedAt: '2026-12-01T00:00:00.000Z',
  payloadEncoding: 'utf8',
  payload: '{"é":1}',
  ...over,
});

describe('summaryOf', () => {
  it('drops the payload and gives its size in bytes, UTF-8 or base64', () => {
    const utf8 = summaryOf({ seq: 3, storedAt: '2026-12-01T00:00:01.000Z', envelope: envelope({}) });
    expect(utf8).not.toHaveProperty('envelope.payload');
    expect(utf8.payloadBytes).toBe(Buffer.byteLength('{"é":1}', 'utf8'));
    const binary = summaryOf({ seq: 4, storedAt: '2026-12-01T00:00:01.000Z', envelope: envelope({ payloadEncoding: 'base64', payload: Buffer.from([0xff, 0x00, 0x01]).toString('base64') }) });
    expect(binary.payloadBytes).toBe(3);
    expect(deadLetterSummaryV1.parse(binary)).toEqual(binary);
  });

  it('cuts a long detail to the limit with an ellipsis and keeps a short one', () => {
    const long = summaryOf({ seq: 5, storedAt: '2026-12-01T00:00:01.000Z', envelope: envelope({ detail: 'x'.repeat(5_000) }) });
    expect(long.envelope.detail).toHaveLength(DEAD_LETTER_DETAIL_CHARS);
    expect(long.envelope.detail?.endsWith('…')).toBe(true);
    expect(summaryOf({ seq: 6, storedAt: '2026-12-01T00:00:01.000Z', envelope: envelope({ detail: 'short' }) }).envelope.detail).toBe('short');
    expect(summaryOf({ seq: 6, storedAt: '2026-12-01T00:00:01.000Z', envelope: envelope({}) }).envelope).not.toHaveProperty('detail');
  });
});
