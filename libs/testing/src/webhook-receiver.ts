/**
 * A webhook receiver on loopback for the delivery tests and the latency bench: records every POST
 * (its Standard Webhooks headers, the raw body, when it arrived), verifies each signature itself —
 * an HMAC-SHA256 over `id.timestamp.body` with the `whsec_` secrets it is told, compared in constant
 * time, written here independently of the gateway's signer so a signer that signs the wrong
 * string fails — and answers what the test's `respond` decides (a status, headers, a delay).
 * Invariant: nothing it records is trusted before `verified` says so; a test asserts that too.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedWebhook {
  /** `webhook-id`. */
  id: string;
  /** `webhook-timestamp` (seconds). */
  timestamp: number;
  /** The `v1,` signatures of `webhook-signature`. */
  signatures: string[];
  contentType: string | undefined;
  body: string;
  /** The parsed body (a CloudEvent). */
  event: { id: string; type: string; subject: string; sequence: string; data: Record<string, unknown> } & Record<string, unknown>;
  /** Whether one of the signatures is the HMAC of `id.timestamp.body` under one of the secrets held when it arrived. */
  verified: boolean;
  /** How many of the secrets held sign it. */
  verifiedBy: number;
  /** performance.now() when the request arrived, and Date.now(). */
  at: number;
  wallAt: number;
  /** How many times this id arrived before (0 for the first). */
  repeat: number;
}

export interface ReceiverAnswer {
  status: number;
  headers?: Record<string, string>;
  body?: string;
  /** Wait this long before answering. */
  delayMs?: number;
}

export interface WebhookReceiver {
  url: string;
  received: ReceivedWebhook[];
  /** The endpoint's signing secrets (`whsec_…`), newest first; set after create or rotate. */
  secrets: string[];
  respond: (webhook: ReceivedWebhook) => ReceiverAnswer;
  close(): Promise<void>;
}

/** Standard Webhooks verification of one request (any listed signature under any secret). */
export function verifyStandardWebhook(secrets: readonly string[], id: string, timestamp: string, body: string, signatureHeader: string): number {
  const content = `${id}.${timestamp}.${body}`;
  const given = signatureHeader
    .split(' ')
    .filter((s) => s.startsWith('v1,'))
    .map((s) => Buffer.from(s.slice(3), 'base64'));
  let matched = 0;
  for (const secret of secrets) {
    const expected = createHmac('sha256', Buffer.from(secret.replace(/^whsec_/, ''), 'base64')).update(content).digest();
    if (given.some((g) => g.length === expected.length && timingSafeEqual(g, expected))) matched++;
  }
  return matched;
}

export async function startWebhookReceiver(respond: (webhook: ReceivedWebhook) => ReceiverAnswer = () => ({ status: 204 })): Promise<WebhookReceiver> {
  const received: ReceivedWebhook[] = [];
  const seen = new Map<string, number>();
  const receiver = { received, secrets: [] as string[], respond } as WebhookReceiver;
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const at = performance.now();
      const body = Buffer.concat(chunks).toString('utf8');
      const header = (name: string) => (typeof req.headers[name] === 'string' ? (req.headers[name] as string) : '');
      const id = header('webhook-id');
      let event: ReceivedWebhook['event'];
      try {
        event = JSON.parse(body) as ReceivedWebhook['event'];
      } catch {
        event = { id: '', type: '', subject: '', sequence: '', data: {} };
      }
      const verifiedBy = verifyStandardWebhook(receiver.secrets, id, header('webhook-timestamp'), body, header('webhook-signature'));
      const webhook: ReceivedWebhook = {
        id,
        timestamp: Number(header('webhook-timestamp')),
        signatures: header('webhook-signature').split(' ').filter(Boolean),
        contentType: req.headers['content-type'],
        body,
        event,
        verified: verifiedBy > 0,
        verifiedBy,
        at,
        wallAt: Date.now(),
        repeat: seen.get(id) ?? 0,
      };
      seen.set(id, webhook.repeat + 1);
      received.push(webhook);
      const answer = receiver.respond(webhook);
      const send = () => {
        res.writeHead(answer.status, answer.headers ?? {});
        res.end(answer.body ?? '');
      };
      if (answer.delayMs) setTimeout(send, answer.delayMs);
      else send();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
  receiver.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return receiver;
}
