import { describe, expect, it } from '@jest/globals';
import { createServer } from 'node:net';
import { freePort } from './free-port.js';

describe('freePort', () => {
  it('returns a port that can be bound right away', async () => {
    const port = await freePort();
    expect(port).toBeGreaterThan(0);
    const server = createServer();
    await new Promise<void>((resolve, reject) => server.once('error', reject).listen(port, '127.0.0.1', resolve));
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
});
