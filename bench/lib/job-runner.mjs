/**
 * Runs a *job* scenario: a fixed amount of work (ingest N rows, run a backfill) done once per round
 * and timed by the scenario itself, instead of a request rate held for a duration (runner.mjs).
 * Order: setup → support services in child processes (each its own pid, CPU and memory) → rounds
 * alternating baseline and candidate (B C B C …, as runner.mjs, so drift on a shared machine hits
 * both alike), each preceded by the scenario's untimed `prepare` (e.g. empty the tables) → medians
 * and the candidate/baseline ratio of throughput → the peak memory of every child → teardown, which
 * runs even when a step before it failed. A scenario without a baseline (a pacing measurement) runs
 * the candidate only and reports its figures.
 *
 * A job scenario module's default export (`kind: 'job'`):
 *   name, title, unit                e.g. 'ingest-observations', '…', 'rows'
 *   baseline?, candidate             { label }: the work itself is `run(fixture, side, ctx)`
 *   rounds?                          default rounds per side (BENCH_ROUNDS wins)
 *   support?                         [{ label, module }] child servers, started in order after setup;
 *                                    each URL lands in fixture.support[label] (later ones see earlier
 *                                    ones' URLs, e.g. the orchestrator gets the simulator's)
 *   setup(options) → fixture         JSON-serializable (it reaches the children over IPC); undoes its
 *                                    own partial work when it throws
 *   ready?(fixture, ctx)             untimed, once the children run (e.g. fetch the test data from the
 *                                    simulator child); ctx = { children, print }
 *   prepare?(fixture, side, round)   untimed, before each round
 *   run(fixture, side, ctx)          → { units, ms, details? }: the scenario times its own work (e.g.
 *                                    first publish → last receipt); ctx = { round, signal, children, print }
 *   teardown(fixture)
 */
import os from 'node:os';
import { startChildServer, stopAndTearDown } from './child-server.mjs';
import { readPeakKiB, resetPeak } from './proc-memory.mjs';
import { median } from './stats.mjs';

/** Medians per side and the candidate/baseline throughput ratios (overall and per round). Pure. */
export function summarizeJobRounds(rounds, sides) {
  const summary = {};
  for (const side of sides) {
    const mine = rounds.filter((r) => r.side === side);
    summary[side] = { rate: median(mine.map((r) => r.rate)), ms: median(mine.map((r) => r.ms)), units: mine[0]?.units, rounds: mine.length };
  }
  if (sides.includes('baseline')) {
    const perRound = [];
    for (const r of rounds.filter((x) => x.side === 'candidate')) {
      const b = rounds.find((x) => x.side === 'baseline' && x.round === r.round);
      if (b) perRound.push(r.rate / b.rate);
    }
    summary.ratio = { rate: summary.candidate.rate / summary.baseline.rate, rateMedianOfRounds: median(perRound), perRound };
  }
  return summary;
}

/** `units / seconds`; NaN for a zero or missing duration. Pure. */
export function rateOf(units, ms) {
  return ms > 0 ? units / (ms / 1000) : Number.NaN;
}

export async function runJobScenario(scenario, { options, signal, print = console.log } = {}) {
  const sides = scenario.baseline ? ['baseline', 'candidate'] : ['candidate'];
  const roundsWanted = options?.rounds ?? scenario.rounds ?? 3;
  const started = [];
  const rounds = [];
  const invalidReasons = [];
  const result = {
    kind: 'job',
    scenario: scenario.name,
    title: scenario.title,
    unit: scenario.unit,
    date: new Date().toISOString(),
    options: { rounds: roundsWanted },
    labels: Object.fromEntries(sides.map((s) => [s, scenario[s].label])),
  };
  let fixture;
  try {
    print(`\n== ${scenario.name}: ${scenario.title}`);
    for (const side of sides) print(`   ${`${side}:`.padEnd(11)}${scenario[side].label}`);
    print(`   load average ${os.loadavg().map((x) => x.toFixed(2)).join(' ')} on ${os.cpus().length} cpus (other work on the machine skews absolute numbers)`);
    result.loadAverageAtStart = os.loadavg();
    fixture = await scenario.setup({ print });
    fixture.support = {};
    const children = {};
    for (const s of scenario.support ?? []) {
      const child = await startChildServer({ label: s.label, module: s.module, fixture, logName: `${scenario.name}-${s.label}` });
      started.push(child);
      children[s.label] = child;
      fixture.support[s.label] = child.url;
    }
    await scenario.ready?.(fixture, { children, print });
    // getrusage's maxRSS before any round: the start-up peak (the per-round VmHWM resets lower it after).
    const startup = {};
    for (const child of started) startup[child.label] = (await child.resourceUsage()).maxRssKiB;
    if (started.length) print(`   processes: ${started.map((c) => `${c.label} (pid ${c.pid})`).join(', ')}; logs in ${started[0].logFile.replace(/[^/]+$/, '')}`);
    print(`   round  side       ${scenario.unit.padStart(10)}   seconds   ${`${scenario.unit}/s`.padStart(12)}`);
    for (let round = 1; round <= roundsWanted; round++) {
      for (const side of sides) {
        if (signal?.aborted) throw new Error('interrupted');
        await scenario.prepare?.(fixture, side, round);
        // Peak RSS during this round only (VmHWM reset now, read after); null where /proc cannot.
        const resettable = started.filter((c) => resetPeak(c.pid));
        const r = await scenario.run(fixture, side, { round, signal, children, print });
        const rate = rateOf(r.units, r.ms);
        const peakKiB = Object.fromEntries(resettable.map((c) => [c.label, readPeakKiB(c.pid)]));
        rounds.push({ round, side, units: r.units, ms: r.ms, rate, details: r.details, peakKiB, loadAverage: os.loadavg() });
        print(`   ${String(round).padEnd(6)} ${side.padEnd(10)} ${String(r.units).padStart(10)}   ${(r.ms / 1000).toFixed(2).padStart(7)}   ${rate.toFixed(0).padStart(12)}`);
        for (const line of r.lines ?? []) print(`          ${line}`);
      }
    }
    result.summary = summarizeJobRounds(rounds, sides);
    result.peakMemory = {};
    for (const child of started) {
      const usage = await child.resourceUsage();
      const during = rounds.map((r) => r.peakKiB[child.label]).filter((k) => typeof k === 'number');
      result.peakMemory[child.label] = {
        pid: child.pid,
        /** Highest VmHWM reached inside any round; without /proc, maxRSS at the end (start-up included). */
        roundPeakMiB: (during.length ? Math.max(...during) : usage.maxRssKiB) / 1024,
        /** getrusage's maxRSS before the first round (migrations, JIT, test data). */
        startupPeakMiB: startup[child.label] / 1024,
        rssMiB: usage.rssBytes / 2 ** 20,
        cpuSeconds: usage.cpuUs / 1e6,
      };
    }
  } catch (error) {
    invalidReasons.push(error instanceof Error ? error.message : String(error));
    result.failed = true;
  } finally {
    await stopAndTearDown(started, scenario, fixture, (reason) => invalidReasons.push(reason));
  }
  result.rounds = rounds;
  result.valid = invalidReasons.length === 0 && rounds.length === sides.length * roundsWanted;
  result.invalidReasons = invalidReasons;
  return result;
}

const f0 = (x) => (Number.isFinite(x) ? x.toFixed(0) : 'n/a');
const f2 = (x) => (Number.isFinite(x) ? x.toFixed(2) : 'n/a');

export function printJobSummary(result, print = console.log) {
  const { summary } = result;
  print(`   -- ${result.scenario}: medians of ${result.options.rounds} round(s)`);
  if (summary) {
    for (const side of Object.keys(result.labels)) {
      const s = summary[side];
      print(`   ${side.padEnd(10)} ${result.labels[side].slice(0, 60).padEnd(60)} ${f0(s.rate).padStart(8)} ${result.unit}/s   ${f2(s.ms / 1000).padStart(7)} s`);
    }
    if (summary.ratio) {
      const per = summary.ratio.perRound.filter(Number.isFinite);
      print(`   ratio candidate/baseline (${result.unit}/s): ${f2(summary.ratio.rate)} (median of per-round ratios ${f2(summary.ratio.rateMedianOfRounds)}, range ${f2(Math.min(...per))}–${f2(Math.max(...per))})`);
    }
  }
  if (result.peakMemory && Object.keys(result.peakMemory).length) {
    print(`   peak RSS per process during the rounds (before them): ${Object.entries(result.peakMemory).map(([label, m]) => `${label} ${f0(m.roundPeakMiB)} MiB (${f0(m.startupPeakMiB)})`).join(', ')}`);
  }
  print(`   valid: ${result.valid ? 'yes' : 'NO'}`);
  for (const reason of result.invalidReasons) print(`     - ${reason}`);
}
