import { describe, expect, it } from '@jest/globals';
import { createServer } from 'node:net';
import { readFileSync } from 'node:fs';
import { freePort, freePortRange } from './free-port.js';

describe('freePort', () => {
  it('returns a port that can be bound right away', async () => {
    const port = await freePort();
    expect(port).toBeGreaterThan(0);
    const server = createServer();
    await new Promise<void>((resolve, reject) => server.once('error', reject).listen(port, '127.0.0.1', resolve));
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it('draws below the kernel ephemeral range, where no port-0 listener gets its port', async () => {
    const low = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
    for (let i = 0; i < 20; i++) expect(await freePort()).toBeLessThan(low);
    const first = await freePortRange(6);
    expect(first + 5).toBeLessThan(low);
  });
});
