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
