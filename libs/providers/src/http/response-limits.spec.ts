/**
 * Runaway provider responses (issue 14, item 2), against a real local HTTP server: a body over the
 * size cap is refused `provider_response_changed` (by Content-Length at once, or while streaming
 * without one) and never retried; a body that never ends is cut by the request deadline
 * (`provider_unavailable`, message `timeout`). Mutation tried: `readCapped` replaced by
 * `response.text()` — the streamed 2 MiB body is read whole and the first two tests fail.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ProviderHttpClient } from './provider-http-client.js';

let server: Server;
let baseUrl: string;
let hits = 0;

beforeAll(async () => {
  server = createServer((req, res) => {
    hits += 1;
    if (req.url === '/declared') {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(2 * 1024 * 1024) });
      // Valid JSON (a long string), so only the size can refuse it.
      res.end(`"${'a'.repeat(2 * 1024 * 1024 - 2)}"`);
    } else if (req.url === '/streamed') {
      res.writeHead(200, { 'content-type': 'application/json' });
      const chunk = Buffer.alloc(64 * 1024, 0x20);
      let sent = 0;
      res.write('[');
      const push = () => {
        if (sent >= 32 || res.destroyed) return res.end(']');
        sent += 1;
        res.write(chunk, () => setImmediate(push));
      };
      push();
    } else if (req.url === '/endless') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('[');
      const timer = setInterval(() => res.write(' '), 50);
      res.on('close', () => clearInterval(timer));
    } else {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"ok":true}');
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const client = (options: { maxResponseBytes?: number; timeoutMs?: number } = {}) => new ProviderHttpClient({ baseUrl, retry: { maxAttempts: 3, baseDelayMs: 1, maxDelayMs: 1 }, ...options });

describe('provider response limits', () => {
  it('refuses a body whose Content-Length is over the cap, without retrying', async () => {
    hits = 0;
    await expect(client({ maxResponseBytes: 1024 * 1024 }).request({ path: '/declared' })).rejects.toMatchObject({ code: 'provider_response_changed', message: expect.stringContaining('over 1048576 bytes') });
    expect(hits).toBe(1);
  });

  it('refuses a streamed body once it passes the cap', async () => {
    hits = 0;
    await expect(client({ maxResponseBytes: 1024 * 1024 }).request({ path: '/streamed' })).rejects.toMatchObject({ code: 'provider_response_changed', message: expect.stringContaining('over 1048576 bytes') });
    expect(hits).toBe(1);
  });

  it('reads a body within the cap, streamed or declared', async () => {
    await expect(client({ maxResponseBytes: 4 * 1024 * 1024 }).request({ path: '/streamed' })).resolves.toMatchObject({ json: [] });
    await expect(client({ maxResponseBytes: 4 * 1024 * 1024 }).request({ path: '/declared' })).resolves.toMatchObject({ status: 200 });
    await expect(client({ maxResponseBytes: 1024 }).request({ path: '/ok' })).resolves.toMatchObject({ json: { ok: true } });
  });

  it('cuts a body that never ends at the request deadline', async () => {
    const startedAt = Date.now();
    await expect(new ProviderHttpClient({ baseUrl, retry: { maxAttempts: 1 }, timeoutMs: 300 }).request({ path: '/endless' })).rejects.toMatchObject({ code: 'provider_unavailable', message: expect.stringContaining('timeout') });
    const tookMs = Date.now() - startedAt;
    expect(tookMs).toBeLessThan(2_000);
    process.stdout.write(`[provider-limits] endless body cut by a 300 ms deadline after ${tookMs} ms\n`);
  });
});
