// Webhook verification for receivers (docs/webhooks.md; Standard Webhooks, https://www.standardwebhooks.com).
// Verify before trusting anything in the body: the signature is an HMAC-SHA256 over
// `${webhook-id}.${webhook-timestamp}.${raw body}` with the key the endpoint's `whsec_` secret encodes
// (base64 after the prefix); `webhook-signature` lists one `v1,<base64>` per secret that signs (two
// during a rotation). Signatures are compared in constant time, and a timestamp more than
// `toleranceSeconds` away from now is refused, so a captured request cannot be replayed later.
// Node's own crypto only: the SDK has no dependencies.
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { WebhookConnectionEvent, WebhookFaultEvent, WebhookSyncEvent } from './generated/openapi.js';

/** Every event body an endpoint receives (CloudEvents 1.0, `type` says which). */
export type WebhookEvent = WebhookFaultEvent | WebhookSyncEvent | WebhookConnectionEvent;

export type WebhookVerificationReason = 'missing_header' | 'invalid_timestamp' | 'timestamp_out_of_tolerance' | 'no_matching_signature' | 'invalid_body';

export class WebhookVerificationError extends Error {
  constructor(readonly reason: WebhookVerificationReason) {
    super(`webhook not verified: ${reason}`);
    this.name = 'WebhookVerificationError';
  }
}

/** Request headers as Node's `IncomingMessage.headers`, a fetch `Headers`, or a plain record. */
export type HeadersLike = Headers | Readonly<Record<string, string | readonly string[] | undefined>>;

export interface VerifyWebhookOptions {
  /** How far the timestamp may be from now, in seconds (default 300, the spec's 5 minutes). */
  toleranceSeconds?: number;
  /** The time to compare with (tests); default now. */
  now?: Date;
}

const header = (headers: HeadersLike, name: string): string | undefined => {
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name) ?? undefined;
  const record = headers as Readonly<Record<string, string | readonly string[] | undefined>>;
  const key = Object.keys(record).find((k) => k.toLowerCase() === name);
  const value = key === undefined ? undefined : record[key];
  return Array.isArray(value) ? value[0] : (value as string | undefined);
};

const keyOf = (secret: string): Buffer => Buffer.from(secret.startsWith('whsec_') ? secret.slice('whsec_'.length) : secret, 'base64');

/** The `v1,` signature of one message under one secret (what the delivery sends; useful to test a receiver). */
export function signWebhook(secret: string, id: string, timestampSeconds: number, body: string): string {
  return `v1,${createHmac('sha256', keyOf(secret)).update(`${id}.${timestampSeconds}.${body}`, 'utf8').digest('base64')}`;
}

/**
 * Verifies a received webhook and returns its event. `secrets`: the endpoint's secret, or several
 * (during your own switch to a rotated one). `body`: the raw body exactly as received — parse it only
 * after this returns. Throws WebhookVerificationError saying why otherwise.
 */
export function verifyWebhook(secrets: string | readonly string[], headers: HeadersLike, body: string | Uint8Array, options: VerifyWebhookOptions = {}): WebhookEvent {
  const id = header(headers, 'webhook-id');
  const timestamp = header(headers, 'webhook-timestamp');
  const signatures = header(headers, 'webhook-signature');
  if (!id || !timestamp || !signatures) throw new WebhookVerificationError('missing_header');
  if (!/^\d{1,12}$/.test(timestamp)) throw new WebhookVerificationError('invalid_timestamp');
  const now = Math.floor((options.now ?? new Date()).getTime() / 1000);
  if (Math.abs(now - Number(timestamp)) > (options.toleranceSeconds ?? 300)) throw new WebhookVerificationError('timestamp_out_of_tolerance');
  const text = typeof body === 'string' ? body : Buffer.from(body).toString('utf8');
  const given = signatures
    .split(' ')
    .filter((s) => s.startsWith('v1,'))
    .map((s) => Buffer.from(s.slice(3), 'base64'));
  const matched = (Array.isArray(secrets) ? secrets : [secrets as string]).some((secret) => {
    const expected = Buffer.from(signWebhook(secret, id, Number(timestamp), text).slice(3), 'base64');
    return given.some((g) => g.length === expected.length && timingSafeEqual(g, expected));
  });
  if (!matched) throw new WebhookVerificationError('no_matching_signature');
  let event: WebhookEvent;
  try {
    event = JSON.parse(text) as WebhookEvent;
  } catch {
    throw new WebhookVerificationError('invalid_body');
  }
  // The signed id is the event's: a body moved under another message's headers is refused.
  if (event?.id !== id) throw new WebhookVerificationError('invalid_body');
  return event;
}
