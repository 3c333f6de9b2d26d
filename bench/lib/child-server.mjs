/**
 * Starts a benchmark server in its own Node process, so the load generator never shares an event
 * loop (or a garbage collector) with the server under test. The child runs server-entry.mjs on the
 * same Node binary as the parent (the pinned Node 24 under `npm run bench`); its stdout and stderr
 * go to a log file under bench/results/logs/ (the gateway's access log is part of its real cost,
 * and a file costs the parent nothing). Invariants: start and stop are bounded in time; a child
 * that does not stop in time is killed by its own pid.
 */
import { fork } from 'node:child_process';
import { closeSync, mkdirSync, openSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ENTRY = fileURLToPath(new URL('./server-entry.mjs', import.meta.url));

/**
 * The Node flags deploy/docker/entrypoint.sh starts an app with (its `heap` per SWITCHYARD_APP),
 * given to a child serving that app (`?service=` of its module URL), so a benchmark measures the
 * process as deployed; bench/test/harness.test.mjs holds the two lists equal.
 */
export const APP_NODE_FLAGS = Object.freeze({ 'telemetry-ingest': ['--max-old-space-size=256', '--max-semi-space-size=16'] });

/** The flags of the app a module URL serves (none for other servers). */
export function nodeFlagsFor(module) {
  return APP_NODE_FLAGS[new URL(module).searchParams.get('service') ?? ''] ?? [];
}
export const RESULTS_DIR = fileURLToPath(new URL('../results/', import.meta.url));

function tail(file, lines = 30) {
  try {
    return readFileSync(file, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
  } catch {
    return '(no log)';
  }
}

/**
 * `module`: URL of a module exporting `start(fixture) → { url, close() }`; `fixture` must be
 * JSON-serializable (it crosses IPC, never argv or env, so secrets in it stay out of `ps`).
 * Resolves `{ label, url, pid, logFile, cpuUsage(), resourceUsage(), stop() }` once the server listens.
 */
export async function startChildServer({ label, module, fixture, logName, startTimeoutMs = 60_000, stopTimeoutMs = 15_000 }) {
  const logFile = join(RESULTS_DIR, 'logs', `${logName ?? label}.log`);
  mkdirSync(dirname(logFile), { recursive: true });
  const fd = openSync(logFile, 'w');
  let child;
  try {
    // BENCH_CHILD_ARGV: extra flags for every child, after the app's own (e.g. --cpu-prof --cpu-prof-dir=…).
    const extra = (process.env.BENCH_CHILD_ARGV ?? '').split(' ').filter(Boolean);
    child = fork(ENTRY, [], { stdio: ['ignore', fd, fd, 'ipc'], execArgv: [...process.execArgv, ...nodeFlagsFor(module), ...extra] });
  } finally {
    closeSync(fd); // the child holds its own copy
  }
  const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));

  const url = await new Promise((resolve, reject) => {
    let settled = false;
    const timer = setTimeout(() => fail(new Error(`${label}: not ready within ${startTimeoutMs} ms`)), startTimeoutMs);
    function fail(error) {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      child.kill('SIGKILL');
      reject(new Error(`${error.message}\n--- last lines of ${logFile} ---\n${tail(logFile)}`));
    }
    child.on('message', (message) => {
      if (message?.type === 'ready' && !settled) {
        settled = true;
        clearTimeout(timer);
        resolve(message.url);
      } else if (message?.type === 'error') fail(new Error(`${label}: ${message.message}`));
    });
    void exited.then(({ code, signal }) => fail(new Error(`${label}: exited before ready (code ${code}, signal ${signal})`)));
    child.send({ type: 'start', module: String(module), fixture });
  });

  /** Sends `{ type }` and resolves the child's answer of the same type; bounded to 5 s. */
  function ask(type) {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => done(undefined, new Error(`${label}: no ${type} answer within 5 s`)), 5_000);
      function done(message, error) {
        clearTimeout(timer);
        child.off('message', onMessage);
        if (error) reject(error);
        else resolve(message);
      }
      function onMessage(message) {
        if (message?.type === type) done(message);
      }
      child.on('message', onMessage);
      child.send({ type });
    });
  }

  let stopped;
  return {
    label,
    url,
    pid: child.pid,
    logFile,
    /** The child's cumulative CPU time in µs (`user + system`), asked over IPC; bounded to 5 s. */
    async cpuUsage() {
      const { usage } = await ask('cpu');
      return usage.user + usage.system;
    },
    /** `{ maxRssKiB, rssBytes, cpuUs }`: the child's peak resident set so far (process.resourceUsage().maxRSS), its current RSS and CPU time. */
    async resourceUsage() {
      const { usage, rss } = await ask('usage');
      return { maxRssKiB: usage.maxRSS, rssBytes: rss, cpuUs: usage.userCPUTime + usage.systemCPUTime };
    },
    stop() {
      stopped ??= (async () => {
        if (child.exitCode !== null || child.signalCode !== null) return;
        if (child.connected) child.send({ type: 'stop' });
        const timer = setTimeout(() => child.kill('SIGKILL'), stopTimeoutMs);
        const { code, signal } = await exited;
        clearTimeout(timer);
        if (code !== 0) throw new Error(`${label}: stopped with code ${code}, signal ${signal}; see ${logFile}`);
      })();
      return stopped;
    },
  };
}

/**
 * A scenario's end, shared by both runners: stops `children` in reverse start order, then runs the
 * scenario's teardown of `fixture` (when setup got that far); every failure is passed to `report`
 * and none stops the rest.
 */
export async function stopAndTearDown(children, scenario, fixture, report) {
  for (const child of [...children].reverse()) {
    await child.stop().catch((error) => report(`stop: ${error.message}`));
  }
  if (fixture) await scenario.teardown(fixture).catch((error) => report(`teardown: ${error.message}`));
}
