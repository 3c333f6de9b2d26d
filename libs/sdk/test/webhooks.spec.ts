/**
 * The SDK's webhook verifier (src/webhooks.ts) against signatures computed here from the Standard
 * Webhooks definition (HMAC-SHA256 of `id.timestamp.body`, key = base64 after `whsec_`), and against
 * what fails: another body, another id, another secret, an old or future timestamp, a missing header.
 * Two signatures (a rotation) verify under either secret. Mutations tried: comparing only the first
 * listed signature → "verifies during a rotation" fails; skipping the tolerance check → "refuses a
 * timestamp" fails.
 */
import { describe, expect, it } from '@jest/globals';
import { createHmac, randomBytes } from 'node:crypto';
import { signWebhook, verifyWebhook, WebhookVerificationError } from '../src/index.js';

const secret = `whsec_${randomBytes(24).toString('base64')}`;
const other = `whsec_${randomBytes(24).toString('base64')}`;
const id = '0b7e3c43-8f2a-4c1e-9d55-3f1e2a7b9c01';
const now = new Date('2026-06-01T12:00:00Z');
const ts = Math.floor(now.getTime() / 1000);
const body = JSON.stringify({ specversion: '1.0', id, type: 'fault.opened', source: '/switchyard/connections/x', data: {} });
const reference = (key: string, content: string) => `v1,${createHmac('sha256', Buffer.from(key.slice(6), 'base64')).update(content).digest('base64')}`;
const headers = (signature: string, timestamp = String(ts), webhookId = id) => ({ 'webhook-id': webhookId, 'webhook-timestamp': timestamp, 'webhook-signature': signature });
const reason = (fn: () => unknown) => {
  try {
    fn();
    return 'verified';
  } catch (error) {
    return error instanceof WebhookVerificationError ? error.reason : String(error);
  }
};

describe('verifyWebhook', () => {
  it('signs exactly what the definition says', () => {
    expect(signWebhook(secret, id, ts, body)).toBe(reference(secret, `${id}.${ts}.${body}`));
  });

  it('returns the event of a good request (Node headers, fetch Headers, a Buffer body)', () => {
    const signature = reference(secret, `${id}.${ts}.${body}`);
    expect(verifyWebhook(secret, headers(signature), body, { now })).toMatchObject({ id, type: 'fault.opened' });
    expect(verifyWebhook([secret], new Headers(headers(signature)), Buffer.from(body), { now }).id).toBe(id);
    expect(verifyWebhook(secret, { 'Webhook-Id': id, 'Webhook-Timestamp': String(ts), 'Webhook-Signature': signature }, body, { now }).id).toBe(id);
  });

  it('verifies during a rotation: two signatures, either secret', () => {
    const both = `${reference(other, `${id}.${ts}.${body}`)} ${reference(secret, `${id}.${ts}.${body}`)}`;
    expect(reason(() => verifyWebhook(secret, headers(both), body, { now }))).toBe('verified');
    expect(reason(() => verifyWebhook(other, headers(both), body, { now }))).toBe('verified');
    expect(reason(() => verifyWebhook([`whsec_${randomBytes(24).toString('base64')}`, secret], headers(both), body, { now }))).toBe('verified');
  });

  it('refuses another body, another id, another secret or an unsigned header', () => {
    const signature = reference(secret, `${id}.${ts}.${body}`);
    expect(reason(() => verifyWebhook(secret, headers(signature), `${body} `, { now }))).toBe('no_matching_signature');
    expect(reason(() => verifyWebhook(other, headers(signature), body, { now }))).toBe('no_matching_signature');
    expect(reason(() => verifyWebhook(secret, headers(reference(secret, `${id}.${body}`)), body, { now }))).toBe('no_matching_signature');
    expect(reason(() => verifyWebhook(secret, headers('v2,abc'), body, { now }))).toBe('no_matching_signature');
    // The signed id must be the body's: the same body under another message's id and signature.
    const otherId = '0b7e3c43-8f2a-4c1e-9d55-3f1e2a7b9c02';
    expect(reason(() => verifyWebhook(secret, headers(reference(secret, `${otherId}.${ts}.${body}`), String(ts), otherId), body, { now }))).toBe('invalid_body');
  });

  it('refuses a timestamp more than five minutes away, and a missing header', () => {
    const at = (t: number) => headers(reference(secret, `${id}.${t}.${body}`), String(t));
    expect(reason(() => verifyWebhook(secret, at(ts - 301), body, { now }))).toBe('timestamp_out_of_tolerance');
    expect(reason(() => verifyWebhook(secret, at(ts + 301), body, { now }))).toBe('timestamp_out_of_tolerance');
    expect(reason(() => verifyWebhook(secret, at(ts - 299), body, { now }))).toBe('verified');
    expect(reason(() => verifyWebhook(secret, { 'webhook-id': id, 'webhook-timestamp': String(ts) }, body, { now }))).toBe('missing_header');
    expect(reason(() => verifyWebhook(secret, headers(reference(secret, `${id}.x.${body}`), 'x'), body, { now }))).toBe('invalid_timestamp');
  });
});
