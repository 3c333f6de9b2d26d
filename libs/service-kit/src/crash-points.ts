/**
 * Named crash points for the crash test (test-only; docs/configuration.md): a process started with
 * `SWITCHYARD_CRASH_AT=<point>[:<n>]` signals ITSELF the n-th time (default 1st) it passes `<point>`,
 * with SIGKILL by default or `SWITCHYARD_CRASH_SIGNAL=SIGSTOP` (a stall past its lease, resumed by
 * the test with SIGCONT). A stopped process is resumed and passes later hits without signalling again.
 *
 * Points: `after-fetch` (collector: a provider page fetched, nothing recorded or published),
 * `after-publish` (collector: a batch accepted by JetStream, cursor not saved), `in-commit` (ingest
 * consumer: every write of the batch done, before COMMIT), `after-commit-before-ack` (ingest
 * consumer: committed, receipt not published, delivery not acked).
 *
 * Decisions: the environment is read once when this module loads, so an unset variable costs one
 * comparison per call; SIGKILL (not an exception or `process.exit`) so no finally block, shutdown
 * hook or buffered write runs — exactly a power cut; a bad value fails at start rather than silently
 * testing nothing.
 */

export const CRASH_POINTS = ['after-fetch', 'after-publish', 'in-commit', 'after-commit-before-ack'] as const;
export type CrashPoint = (typeof CRASH_POINTS)[number];

export interface CrashPlan {
  readonly point: CrashPoint;
  /** Signal on this hit (1 = the first time the point is passed). */
  readonly nth: number;
  readonly signal: 'SIGKILL' | 'SIGSTOP';
}

/** Parses SWITCHYARD_CRASH_AT / SWITCHYARD_CRASH_SIGNAL; undefined when unset; throws on a bad value. */
export function parseCrashPlan(env: NodeJS.ProcessEnv): CrashPlan | undefined {
  const raw = env['SWITCHYARD_CRASH_AT'];
  if (raw === undefined || raw === '') return undefined;
  const [point, count, extra] = raw.split(':');
  const nth = count === undefined ? 1 : Number(count);
  const signal = env['SWITCHYARD_CRASH_SIGNAL'] ?? 'SIGKILL';
  if (!CRASH_POINTS.includes(point as CrashPoint) || extra !== undefined || !Number.isInteger(nth) || nth < 1 || (signal !== 'SIGKILL' && signal !== 'SIGSTOP')) {
    throw new Error(`SWITCHYARD_CRASH_AT must be <${CRASH_POINTS.join('|')}>[:<n ≥ 1>] and SWITCHYARD_CRASH_SIGNAL SIGKILL or SIGSTOP (test-only)`);
  }
  return { point: point as CrashPoint, nth, signal };
}

const plan = parseCrashPlan(process.env);
let hits = 0;

/** Marks that this process passed `point`; signals itself when the crash plan says so (no-op when unset). */
export function crashPoint(point: CrashPoint): void {
  if (plan === undefined || plan.point !== point) return;
  hits += 1;
  if (hits === plan.nth) process.kill(process.pid, plan.signal);
}
