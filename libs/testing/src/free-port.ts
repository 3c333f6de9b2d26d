/**
 * A TCP port that was free a moment ago on 127.0.0.1, for servers a test starts itself.
 * Invariant: the probe socket is closed before the port is returned; another process may still
 * take it in between, so callers that bind later should retry on EADDRINUSE.
 */
import { createServer } from 'node:net';

export function freePort(host = '127.0.0.1'): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.once('error', reject);
    server.listen(0, host, () => {
      const address = server.address();
      server.close(() => {
        if (address && typeof address === 'object') resolve(address.port);
        else reject(new Error(`could not read the port bound on ${host}`));
      });
    });
  });
}

/** Whether `port` can be bound on `host` now (the probe is closed again). */
function bindable(port: number, host: string): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.unref();
    server.once('error', () => resolve(false));
    server.listen(port, host, () => server.close(() => resolve(true)));
  });
}

/**
 * The first of `count` consecutive ports free a moment ago (the launcher gives its five contexts
 * the five ports after METRICS_PORT). Same caveat as freePort: another process may take one later.
 */
export async function freePortRange(count: number, host = '127.0.0.1'): Promise<number> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const first = await freePort(host);
    if (first + count - 1 > 65_535) continue;
    let all = true;
    for (let port = first + 1; port < first + count && all; port++) all = await bindable(port, host);
    if (all) return first;
  }
  throw new Error(`no ${count} consecutive free ports on ${host}`);
}
