/**
 * Named crash points for the crash test (test-only; docs/configuration.md): a process started with
 * `SWITCHYARD_CRASH_AT=<point>[:<n>][,<point>[:<n>]…]` signals ITSELF the n-th time (default 1st) it
 * passes one of the listed points (whichever comes first), with SIGKILL by default or
 * `SWITCHYARD_CRASH_SIGNAL=SIGSTOP` (a stall past its lease, resumed by the test with SIGCONT). A
 * stopped process is resumed and passes later hits without signalling again.
 *
 * Points: `after-fetch` (collector: a provider page fetched, nothing recorded or published),
 * `after-publish` (collector: a batch accepted by JetStream, cursor not saved), `in-commit` (ingest
 * consumer: every write of the batch done, before COMMIT), `after-commit-before-ack` (ingest
 * consumer: committed, receipt not published, delivery not acked), `receipt-after-ledger`
 * (orchestrator receipt consumer: the batch marked committed in the unit's batch ledger, the unit
 * not yet marked receipted, the receipt not acked), `relay-after-publish` (an outbox relay: one
 * claimed row published, the batch's rows not marked published), `scheduler-before-commit`
 * (scheduler: a due window decided — runs created or the skip recorded, the schedule moved — before
 * COMMIT). Every point is passed only when there is work (a page, a batch, a receipt, a claimed
 * row, a due schedule), never by an idle loop, so a hit count is a count of units of work.
 *
 * Decisions: the environment is read once when this module loads, so an unset variable costs one
 * comparison per call; SIGKILL (not an exception or `process.exit`) so no finally block, shutdown
 * hook or buffered write runs — exactly a power cut; before signalling, one line
 * `crash point <point> hit <n> <signal>` is written to stderr synchronously (fd 2), so the test can
 * tell which point of a several-point plan fired, and that the kill was the crash point's; a bad
 * value fails at start rather than silently testing nothing.
 */
import { writeSync } from 'node:fs';

export const CRASH_POINTS = [
  'after-fetch',
  'after-publish',
  'in-commit',
  'after-commit-before-ack',
  'receipt-after-ledger',
  'relay-after-publish',
  'scheduler-before-commit',
] as const;
export type CrashPoint = (typeof CRASH_POINTS)[number];

export interface CrashPlan {
  /** Signal on the `nth` hit of `point` (1 = the first time the point is passed); one entry per point. */
  readonly points: readonly { readonly point: CrashPoint; readonly nth: number }[];
  readonly signal: 'SIGKILL' | 'SIGSTOP';
}

/** Parses SWITCHYARD_CRASH_AT / SWITCHYARD_CRASH_SIGNAL; undefined when unset; throws on a bad value. */
export function parseCrashPlan(env: NodeJS.ProcessEnv): CrashPlan | undefined {
  const raw = env['SWITCHYARD_CRASH_AT'];
  if (raw === undefined || raw === '') return undefined;
  const signal = env['SWITCHYARD_CRASH_SIGNAL'] ?? 'SIGKILL';
  const points = raw.split(',').map((entry) => {
    const [point, count, extra] = entry.split(':');
    const nth = count === undefined ? 1 : Number(count);
    return { point: point as CrashPoint, nth, valid: CRASH_POINTS.includes(point as CrashPoint) && extra === undefined && Number.isInteger(nth) && nth >= 1 };
  });
  const repeated = new Set(points.map((p) => p.point)).size !== points.length;
  if (points.some((p) => !p.valid) || repeated || (signal !== 'SIGKILL' && signal !== 'SIGSTOP')) {
    throw new Error(`SWITCHYARD_CRASH_AT must be <${CRASH_POINTS.join('|')}>[:<n ≥ 1>], comma-separated, each point once, and SWITCHYARD_CRASH_SIGNAL SIGKILL or SIGSTOP (test-only)`);
  }
  return { points: points.map(({ point, nth }) => ({ point, nth })), signal };
}

const plan = parseCrashPlan(process.env);
const hits = new Map<CrashPoint, number>();

/** Marks that this process passed `point`; signals itself when the crash plan says so (no-op when unset). */
export function crashPoint(point: CrashPoint): void {
  const planned = plan?.points.find((p) => p.point === point);
  if (plan === undefined || planned === undefined) return;
  const hit = (hits.get(point) ?? 0) + 1;
  hits.set(point, hit);
  if (hit !== planned.nth) return;
  writeSync(2, `crash point ${point} hit ${hit} ${plan.signal}\n`);
  process.kill(process.pid, plan.signal);
}
