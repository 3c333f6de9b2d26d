/**
 * A nats-server (JetStream on) that belongs to one test: a free loopback port and a store
 * directory of its own, so a test can kill it (an outage) and start it again on the same port and
 * store without touching the machine's shared server. Binary: NATS_SERVER_BIN, else
 * /usr/sbin/nats-server, else `nats-server` on PATH.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { freePort } from './free-port.js';
import { tcpProbe } from './services.js';

export interface OwnedNats {
  /** nats://127.0.0.1:<port> */
  readonly url: string;
  readonly port: number;
  /** Kills the server (SIGKILL: connections cut without a goodbye) and waits for it to exit. */
  stop(): Promise<void>;
  /** Starts it again on the same port and store; resolves once it accepts connections. */
  start(): Promise<void>;
  /** Stops it and deletes its store. Idempotent. */
  destroy(): Promise<void>;
}

function binary(): string {
  if (process.env.NATS_SERVER_BIN) return process.env.NATS_SERVER_BIN;
  return existsSync('/usr/sbin/nats-server') ? '/usr/sbin/nats-server' : 'nats-server';
}

export async function startOwnedNats(): Promise<OwnedNats> {
  const dir = await mkdtemp(path.join(tmpdir(), 'sy-owned-nats-'));
  const port = await freePort();
  let child: ChildProcess | undefined;
  let destroyed: Promise<void> | undefined;
  const owned: OwnedNats = {
    url: `nats://127.0.0.1:${port}`,
    port,
    async start() {
      const started = spawn(binary(), ['-js', '-a', '127.0.0.1', '-p', String(port), '-sd', dir], { stdio: 'ignore' });
      child = started;
      for (let i = 0; ; i += 1) {
        if (started.exitCode !== null) throw new Error(`nats-server on ${port} exited (${started.exitCode})`);
        try {
          await tcpProbe('127.0.0.1', port, 500);
          return;
        } catch (error) {
          if (i > 200) throw error;
          await new Promise((resolve) => setTimeout(resolve, 25));
        }
      }
    },
    async stop() {
      const running = child;
      child = undefined;
      if (!running || running.exitCode !== null) return;
      const exited = new Promise((resolve) => running.once('exit', resolve));
      running.kill('SIGKILL');
      await exited;
    },
    destroy() {
      destroyed ??= (async () => {
        await owned.stop();
        await rm(dir, { recursive: true, force: true });
      })();
      return destroyed;
    },
  };
  // A test process that ends without destroy() still kills it.
  process.once('exit', () => child?.kill('SIGKILL'));
  try {
    await owned.start();
  } catch (error) {
    await owned.destroy();
    throw error;
  }
  return owned;
}
