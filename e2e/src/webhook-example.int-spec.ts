/**
 * examples/webhooks/receiver.mjs as a reader runs it (plain Node ESM, @switchyard/sdk built): a
 * request signed with the endpoint's secret (the SDK's signWebhook, what the delivery sends) is
 * answered 204 and printed once, the same webhook-id again is a duplicate (204, not handled twice),
 * a request signed with another secret or with a stale timestamp is 401 with the reason.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { signWebhook } from '@switchyard/sdk';
import { assertBuilt, freePort, spawnNode, type NodeProcess } from '@switchyard/testing';

const secret = `whsec_${randomBytes(24).toString('base64')}`;
let receiver: NodeProcess;
let url: string;

beforeAll(async () => {
  assertBuilt('libs/sdk/dist/index.js', ['libs/sdk']);
  const port = await freePort();
  receiver = spawnNode('examples/webhooks/receiver.mjs', { env: { WEBHOOK_SECRET: secret, PORT: String(port) } });
  const [, listening] = (await receiver.waitForOutput(/"listening":"([^"]+)"/, 30_000)) as unknown as [string, string];
  url = listening;
});

afterAll(async () => {
  await receiver?.kill();
});

const post = (body: string, id: string, key = secret, at = Math.floor(Date.now() / 1000)) =>
  fetch(url, { method: 'POST', headers: { 'content-type': 'application/cloudevents+json', 'webhook-id': id, 'webhook-timestamp': String(at), 'webhook-signature': signWebhook(key, id, at, body) }, body });

describe('examples/webhooks/receiver.mjs', () => {
  it('accepts a signed event once, refuses what the secret did not sign', async () => {
    const id = '0b7e3c43-8f2a-4c1e-9d55-3f1e2a7b9c01';
    const body = JSON.stringify({ specversion: '1.0', id, type: 'connection.paused', subject: 'c1', sequence: '7', time: '2026-06-01T00:00:00.000Z', data: {} });
    expect((await post(body, id)).status).toBe(204);
    await receiver.waitForOutput(/"type":"connection.paused"/);
    expect((await post(body, id)).status).toBe(204);
    await receiver.waitForOutput(/"duplicate":"0b7e3c43/);
    expect((await post(body, id, `whsec_${randomBytes(24).toString('base64')}`)).status).toBe(401);
    await receiver.waitForOutput(/"refused":"no_matching_signature"/);
    expect((await post(body, id, secret, Math.floor(Date.now() / 1000) - 3600)).status).toBe(401);
    await receiver.waitForOutput(/"refused":"timestamp_out_of_tolerance"/);
    expect(receiver.stdout().match(/"type":"connection.paused"/g)).toHaveLength(1);
  });
});
