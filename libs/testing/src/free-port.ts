/**
 * A TCP port that was free a moment ago on 127.0.0.1, for servers a test starts itself.
 * Invariant: the probe socket is closed before the port is returned; another process may still
 * take it in between, so callers that bind later should retry on EADDRINUSE.
 *
 * The port is drawn below the kernel's ephemeral range (net.ipv4.ip_local_port_range), never from
 * it: a server listening on port 0 — the sandbox simulators under `npm start`, every outgoing
 * connection — gets its port from that range, and took a port handed out here before its user
 * bound it (the launcher's gateway failed with EADDRINUSE, CI 2026-12-07).
 */
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';

const LOWEST = 10_000;

/** The first port of the kernel's ephemeral range (32768 when it cannot be read). */
function ephemeralLow(): number {
  try {
    const low = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
    return Number.isInteger(low) && low > LOWEST + 1_000 ? low : 32_768;
  } catch {
    return 32_768;
  }
}

export async function freePort(host = '127.0.0.1', count = 1): Promise<number> {
  const high = ephemeralLow() - count;
  for (let attempt = 0; attempt < 200; attempt++) {
    const port = LOWEST + Math.floor(Math.random() * (high - LOWEST));
    if (await bindable(port, host)) return port;
  }
  throw new Error(`no free port below the ephemeral range on ${host}`);
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
    const first = await freePort(host, count);
    let all = true;
    for (let port = first + 1; port < first + count && all; port++) all = await bindable(port, host);
    if (all) return first;
  }
  throw new Error(`no ${count} consecutive free ports on ${host}`);
}
