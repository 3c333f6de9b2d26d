/**
 * Small named helpers for the messaging integration specs: polling assertions instead of fixed
 * sleeps wherever the outcome is "eventually", a captured-log record type, and the cleanup of a
 * run's streams. (libs/testing, which has its own cleanup, sits above messaging: not imported here.)
 */
import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { Namespace } from '../src/index.js';

export interface CapturedLog {
  level: 'info' | 'warn' | 'error';
  obj: object;
  msg: string;
}

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Retries `assertion` every 20 ms until it passes or `timeoutMs` passes; then rethrows its last error. */
export async function eventually(assertion: () => unknown, timeoutMs = 3_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      await assertion();
      return;
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await sleep(20);
    }
  }
}

/** A namespace no other run uses: `t` + time + random, lower-case base 36. */
export function uniqueNamespace(): string {
  return `t${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
}

/** Deletes every stream of `namespace` on `servers` (their consumers go with them). */
export async function deleteNamespaceStreams(servers: string, namespace: string): Promise<void> {
  const prefix = new Namespace(namespace).stream('X').slice(0, -1);
  const nc = await connect({ servers });
  try {
    const jsm = await jetstreamManager(nc);
    for await (const name of jsm.streams.names()) if (name.startsWith(prefix)) await jsm.streams.delete(name);
  } finally {
    await nc.close();
  }
}
