/**
 * A context service as deployed — the built `apps/<app>/dist/main.js` in its own process on the
 * pinned Node (node-process.ts) — for the crash and scale-out tests, which SIGKILL, SIGSTOP and
 * duplicate real processes. Also the one place that reads a child's scheduler state, so a test can
 * see that a process stopped itself (a SIGSTOP crash point) before it waits past the lease.
 * Invariants: the child's environment is exactly what the caller passes (spawnNode), and readiness
 * is the service's own "<service> started" log line, printed only after its migrations ran and its
 * consumers were set up (libs/service-kit bootstrap).
 */
import { readFileSync } from 'node:fs';
import { assertBuilt, spawnNode, type NodeProcess } from './node-process.js';
import { pollUntil } from './poll.js';

export type ContextApp = 'sync-orchestrator' | 'directory' | 'telemetry-ingest' | 'fault-feed' | 'enrichment';

const RUNTIME_LIBS = ['libs/service-kit', 'libs/messaging', 'libs/persistence', 'libs/domain', 'libs/contracts'];

/** Starts `apps/<app>/dist/main.js` with `env` (plus PATH, HOME, TZ); does not wait for readiness. */
export function spawnService(app: ContextApp, env: Record<string, string>): NodeProcess {
  const main = assertBuilt(`apps/${app}/dist/main.js`, [`apps/${app}`, ...RUNTIME_LIBS, ...(app === 'sync-orchestrator' ? ['libs/providers'] : [])]);
  return spawnNode(main, { env });
}

/** Resolves once the process logged `<app> started` (migrated, consuming); rejects when it exits first. Generous default: a loaded 2-core machine starting eight processes at once takes its time. */
export async function serviceStarted(app: ContextApp, child: NodeProcess, timeoutMs = 180_000): Promise<void> {
  await child.waitForOutput(new RegExp(`"msg":"${app} started"`), timeoutMs);
}

/** The kernel's state letter of a live process (`R`, `S`, `T` = stopped, …); undefined once it is gone. */
export function processState(pid: number): string | undefined {
  try {
    // /proc/<pid>/stat: "pid (comm) state …"; comm may hold spaces or parentheses, so read after the last ')'.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).charAt(0);
  } catch {
    return undefined;
  }
}

/** Waits until the process is stopped by a signal (state `T`), e.g. after a SIGSTOP crash point. */
export async function waitUntilStopped(child: NodeProcess, timeoutMs = 60_000): Promise<void> {
  const pid = child.child.pid;
  if (pid === undefined) throw new Error('process has no pid');
  await pollUntil(
    () => {
      if (child.child.exitCode !== null || child.child.signalCode !== null) throw new Error(`process ${pid} exited instead of stopping:\n${child.output().slice(-2_000)}`);
      return processState(pid) === 'T';
    },
    { timeoutMs, intervalMs: 50, description: `process ${pid} stopped` },
  );
}
