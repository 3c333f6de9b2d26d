/**
 * Standard Webhooks signing (https://www.standardwebhooks.com, decision 0042) and the endpoint's
 * signing secrets.
 * - A secret is `whsec_` + base64 of 24 random bytes; the HMAC key is those bytes (the part after
 *   the prefix, base64-decoded), as the spec and every Standard Webhooks library read it.
 * - The signed content is `${webhook-id}.${webhook-timestamp}.${body}` — the id (the event id,
 *   stable across attempts), the attempt's Unix time in seconds, and the exact body bytes; the
 *   signature `v1,` + base64(HMAC-SHA256(key, content)). `webhook-signature` lists one per valid
 *   secret, space-separated, so during a rotation a receiver holding either secret verifies.
 * - Secrets are stored sealed (SecretBox, AES-256-GCM under SWITCHYARD_MASTER_KEY) with the endpoint
 *   and secret ids as associated data, so a sealed secret copied onto another endpoint fails to
 *   open; a secret in clear exists only in the create/rotate answer and in the memory of an attempt.
 * Invariant: a rotation keeps at most two secrets — the new one, and the previous one until
 * `expiresAt` — and a secret past its expiry signs nothing.
 */
import { createHmac, randomBytes } from 'node:crypto';
import type { SecretBox } from './secret-box.js';

export const WEBHOOK_SECRET_PREFIX = 'whsec_';

/** One stored secret: its id, the sealed value, and (the previous one during a rotation) when it stops signing. */
export interface StoredWebhookSecret {
  id: string;
  sealed: string;
  createdAt: string;
  expiresAt?: string;
}

/** A new secret in clear (shown once) and its stored form. */
export function issueWebhookSecret(box: SecretBox, endpointId: string, now: Date): { secret: string; stored: StoredWebhookSecret } {
  const secret = `${WEBHOOK_SECRET_PREFIX}${randomBytes(24).toString('base64')}`;
  const id = `whs_${randomBytes(10).toString('hex').slice(0, 16)}`;
  return { secret, stored: { id, sealed: box.seal(secret, associatedData(endpointId, id)), createdAt: now.toISOString() } };
}

const associatedData = (endpointId: string, secretId: string) => `webhook-secret:${endpointId}:${secretId}`;

/**
 * The list after a rotation at `now`: the new secret first, the newest still-valid previous one
 * kept until `now + overlapMs` (0: dropped at once), anything older dropped.
 */
export function rotatedSecrets(current: readonly StoredWebhookSecret[], fresh: StoredWebhookSecret, now: Date, overlapMs: number): StoredWebhookSecret[] {
  const previous = usableSecrets(current, now)[0];
  if (!previous || overlapMs <= 0) return [fresh];
  const expiresAt = new Date(Math.min(now.getTime() + overlapMs, previous.expiresAt ? Date.parse(previous.expiresAt) : Infinity)).toISOString();
  return [fresh, { ...previous, expiresAt }];
}

/** The secrets that sign at `now`, newest first. */
export function usableSecrets(secrets: readonly StoredWebhookSecret[], now: Date): StoredWebhookSecret[] {
  return secrets.filter((s) => !s.expiresAt || Date.parse(s.expiresAt) > now.getTime());
}

/** The clear secrets that sign at `now` (opened from their sealed form). */
export function openSecrets(box: SecretBox, endpointId: string, secrets: readonly StoredWebhookSecret[], now: Date): string[] {
  return usableSecrets(secrets, now).map((s) => box.open(s.sealed, associatedData(endpointId, s.id)));
}

/** `v1,<base64 HMAC-SHA256>` of one message under one secret. */
export function webhookSignature(secret: string, id: string, timestampSeconds: number, body: string): string {
  const key = Buffer.from(secret.startsWith(WEBHOOK_SECRET_PREFIX) ? secret.slice(WEBHOOK_SECRET_PREFIX.length) : secret, 'base64');
  return `v1,${createHmac('sha256', key).update(`${id}.${timestampSeconds}.${body}`, 'utf8').digest('base64')}`;
}

/** The three Standard Webhooks headers of one attempt. */
export function webhookHeaders(secrets: readonly string[], id: string, timestampSeconds: number, body: string): Record<string, string> {
  return {
    'webhook-id': id,
    'webhook-timestamp': String(timestampSeconds),
    'webhook-signature': secrets.map((s) => webhookSignature(s, id, timestampSeconds, body)).join(' '),
  };
}
