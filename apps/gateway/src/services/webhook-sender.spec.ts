/**
 * One webhook attempt on the wire (webhook-sender.ts). The egress checks run with the network
 * injected (lookup and connect), so nothing leaves loopback even when a check is removed: the
 * injected connector records where a request would have gone and answers with an error.
 * Mutation tried: webhookEgressPolicy returning the sandbox mode (the guard removed) → "refuses a
 * host resolving to a private address" fails: the connector sees 10.0.0.5 (and no packet is sent).
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { PassThrough } from 'node:stream';
import { webhookEgressPolicy, type EgressTarget } from '@switchyard/providers';
import { WebhookSender } from './webhook-sender.js';

function network(...addresses: string[]) {
  const calls: string[] = [];
  const connected: EgressTarget[] = [];
  return {
    calls,
    connected,
    lookup: async (hostname: string) => {
      calls.push(hostname);
      return addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
    },
    connect: (target: EgressTarget) => {
      connected.push(target);
      const stream = new PassThrough();
      setImmediate(() => stream.destroy(new Error('no network in this test')));
      return stream;
    },
  };
}

const request = (url: string) => ({ url, body: '{"id":"x"}', headers: { 'webhook-id': 'x', 'webhook-timestamp': '1', 'webhook-signature': 'v1,AAAA' } });

describe('egress of a production deployment', () => {
  it.each([['10.0.0.5', 'private'], ['127.0.0.1', 'loopback'], ['169.254.169.254', 'metadata'], ['::1', 'loopback']])('refuses a host resolving to %s (%s): the connector never sees it', async (address) => {
    const net = network(address);
    const result = await new WebhookSender(webhookEgressPolicy('production', net), 1_000).send(request('https://hooks.example.com/in'));
    expect(result).toMatchObject({ status: null, error: 'egress_refused', retryAfterMs: null });
    expect(net.calls).toEqual(['hooks.example.com']);
    expect(net.connected).toEqual([]);
  });

  it.each(['http://hooks.example.com/in', 'https://10.0.0.5/in', 'https://user:pw@hooks.example.com/in'])('refuses %s before resolving it', async (url) => {
    const net = network('93.184.216.34');
    expect(await new WebhookSender(webhookEgressPolicy('production', net), 1_000).send(request(url))).toMatchObject({ error: 'egress_refused' });
    expect(net.calls).toEqual([]);
    expect(net.connected).toEqual([]);
  });

  it('connects a public address (the injected connector stands in for the network)', async () => {
    const net = network('93.184.216.34');
    const result = await new WebhookSender(webhookEgressPolicy('production', net), 1_000).send(request('https://hooks.example.com/in'));
    expect(result.error).toBe('connection_failed');
    expect(net.connected.map((t) => [t.hostname, t.port, t.secure, t.addresses.map((a) => a.address)])).toEqual([['hooks.example.com', 443, true, ['93.184.216.34']]]);
  });
});

describe('answers of a loopback receiver (sandbox egress)', () => {
  let server: Server;
  let base: string;
  const seen: string[] = [];
  beforeAll(async () => {
    server = createServer((req, res) => {
      seen.push(req.url ?? '');
      if (req.url === '/redirect') return void res.writeHead(302, { location: '/elsewhere' }).end();
      if (req.url === '/slow') return; // never answers
      if (req.url === '/big') return void res.writeHead(200).end(Buffer.alloc(1024 * 1024, 0x61));
      if (req.url === '/busy') return void res.writeHead(503, { 'retry-after': '7' }).end('try later');
      res.writeHead(204).end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });
  const sender = () => new WebhookSender(webhookEgressPolicy('sandbox'), 300);

  it('a 2xx delivers', async () => {
    expect(await sender().send(request(`${base}/ok`))).toMatchObject({ status: 204, error: null });
  });

  it('never follows a redirect: a 3xx is redirect_refused and its target is not requested', async () => {
    expect(await sender().send(request(`${base}/redirect`))).toMatchObject({ status: 302, error: 'redirect_refused' });
    expect(seen).not.toContain('/elsewhere');
  });

  it('no answer within the deadline is a timeout', async () => {
    expect(await sender().send(request(`${base}/slow`))).toMatchObject({ status: null, error: 'timeout' });
  });

  it('reads a large body only up to its cap, and the 2xx still delivers', async () => {
    expect(await sender().send(request(`${base}/big`))).toMatchObject({ status: 200, error: null });
  });

  it('hands back Retry-After of a failed answer', async () => {
    expect(await sender().send(request(`${base}/busy`))).toMatchObject({ status: 503, error: 'http_status', retryAfterMs: 7_000 });
  });
});
