import { describe, expect, it } from '@jest/globals';
import { PassThrough } from 'node:stream';
import { createLogger, maskSecrets } from './logger.js';

const token = `pt_${'Ab3'.repeat(17)}x`;
const secret = `sk_sandbox_${'Zq9'.repeat(17)}y`;
/** A webhook signing secret: base64, so `+` and `/` inside (a word-character pattern stops there). */
const webhookSecret = 'whsec_Kx9+b/3mQ2rT8vW1yZ4a6c8eNd0fGh==';

async function capture(fn: (log: ReturnType<typeof createLogger>) => void): Promise<string> {
  const sink = new PassThrough();
  const chunks: string[] = [];
  sink.on('data', (c: Buffer) => chunks.push(c.toString()));
  const log = createLogger({ service: 'test', level: 'debug', destination: sink });
  fn(log);
  log.flush();
  await new Promise((r) => setImmediate(r));
  return chunks.join('');
}

describe('logger', () => {
  it('masks token-shaped strings in messages, nested fields and errors', async () => {
    const out = await capture((log) => {
      log.info(`message with ${token}`);
      log.info({ url: `/v1/x?k=${token}`, nested: { deeper: [secret] } }, 'fields');
      log.error({ err: new Error(`bad ${secret}`) }, 'error');
      log.info({ authorization: `Bearer ${token}`, headers: { 'connection-token': 'ct_anything' } }, 'headers');
    });
    expect(out).not.toContain(token);
    expect(out).not.toContain(secret);
    expect(out).toContain('pt_[redacted]');
    expect(out).toContain('sk_sandbox_[redacted]');
  });

  // Mutation tried: the whsec_ alternative dropped from TOKEN_PATTERN → the secret is in the line, fails.
  it('masks a webhook signing secret whole, its base64 + / = included', async () => {
    const out = await capture((log) => log.warn({ err: new Error(`refused ${webhookSecret} as given`) }, `secret ${webhookSecret}`));
    expect(out).not.toContain('whsec_Kx9');
    expect(out).not.toContain('b/3mQ2rT8vW1yZ4a6c8eNd0fGh');
    expect(out).toContain('whsec_[redacted] as given');
  });

  it('leaves ordinary text alone', () => {
    expect(maskSecrets('route /v1/connections/:id status 200')).toBe('route /v1/connections/:id status 200');
  });
});
