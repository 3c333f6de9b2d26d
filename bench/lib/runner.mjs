/**
 * Runs one scenario: setup → servers in child processes → verification → priming → measured
 * rounds alternating baseline and candidate (B C B C …, so drift on a shared 2-core machine hits
 * both sides alike) → medians and the candidate/baseline ratio → teardown, which runs even when a
 * step before it failed. Absolute numbers swing up to 2x between identical runs here
 * (notes/performance.md); the ratio of medians measured in the same run is the figure to quote.
 *
 * A scenario module's default export:
 *   name, title                     e.g. 'connection-read', 'GET /v1/connections/{id}'
 *   baseline, candidate             { label, module } — module: URL of a server module exporting
 *                                   start(fixture) → { url, close() } (run via child-server.mjs)
 *   support?                        [{ label, module }] started first, each in its own child; its
 *                                   URL is added to fixture.support[label] (e.g. an owning context)
 *   setup() → fixture               JSON-serializable; reaches the servers over IPC. When it
 *                                   throws it must undo its own partial work (teardown is not called)
 *   request(fixture)                the measured request { method, path, headers }: both sides must
 *                                   answer it 200 with byte-identical bodies
 *   checks?(fixture)                extra probes [{ label, request, status }] both sides must answer
 *                                   with that status (e.g. 401 for a wrong key)
 *   teardown(fixture)               drop whatever setup created
 *   hop?                            { label, module }: a third side measured in the same rounds
 *                                   (B C H B C H …), e.g. a bare client of the owning context's
 *                                   NATS subject, so a gateway → NATS → context read splits into
 *                                   gateway cost and NATS-hop-plus-context cost; ratios to baseline
 *   comparable?(text) → string      what must be identical between the sides and across requests
 *                                   (default: the whole body); for bodies carrying a per-request
 *                                   part (a signed cursor over a fresh snapshot), e.g. `results` only
 * Every support child's CPU is sampled per round too (`supportCpuUsPerRequest`: e.g. the directory's
 * share of a candidate request; ~0 in a baseline round, which does not call it), and so is
 * PostgreSQL's for the side and the support children (`dbCpuUsPerRequest`, db-cpu.mjs: the
 * backends serving their connections), which neither of the others includes; after each round the
 * side's resident set (`rssMiB`: the gateway's memory under load).
 */
import os from 'node:os';
import { createClient, runLoad } from './load.mjs';
import { startChildServer, stopAndTearDown } from './child-server.mjs';
import { dbBackendCpu, dbCpuDelta, dbPortOf } from './db-cpu.mjs';
import { median } from './stats.mjs';

export const DEFAULT_OPTIONS = Object.freeze({
  concurrency: 32,
  /** 7: the median then ignores up to 3 rounds disturbed by other work on a shared machine. */
  rounds: 7,
  /** Per round, discarded: re-opens keep-alive connections and settles the pool. */
  warmupMs: 500,
  /** Per round, recorded. 7 rounds × 2 sides × (0.5 + 3 s) ≈ 49 s per scenario, ~65 s with priming and start-up. */
  durationMs: 3_000,
  /** Once per side before round 1, discarded: JIT and connection pools (with 2 s the gateway's CPU per request still fell ~25% over rounds 1-2). */
  primeMs: 4_000,
  /** Upper bound on recorded requests per round (also sizes the latency buffer: 8 bytes each). */
  maxRequests: 500_000,
  /** Per request; a round therefore ends at most this long after its deadline. */
  timeoutMs: 10_000,
});

const sideNamesOf = (scenario) => ['baseline', 'candidate', ...(scenario.hop ? ['hop'] : [])];

async function verify(scenario, fixture, sides, timeoutMs) {
  const comparable = scenario.comparable ?? ((text) => text);
  const clients = await Promise.all(sides.map((s) => createClient(s.url, { connections: 1, timeoutMs })));
  try {
    const send = (request) => Promise.all(clients.map((c) => c.send(request)));
    const main = scenario.request(fixture);
    const answers = await send(main);
    const [b] = answers;
    if (answers.some((a) => a.status !== 200)) throw new Error(`verification: ${main.method} ${main.path} answered ${answers.map((a) => a.status).join(', ')} (baseline, candidate, hop), want 200 from all`);
    const body = comparable(b.text);
    for (const [i, a] of answers.entries()) {
      if (comparable(a.text) !== body) throw new Error(`verification: bodies differ\n  baseline: ${b.text}\n  side ${i}:   ${a.text}`);
    }
    const checks = [{ label: 'measured request', status: 200 }];
    for (const check of scenario.checks?.(fixture) ?? []) {
      const statuses = (await send(check.request)).map((a) => a.status);
      if (statuses.some((status) => status !== check.status)) {
        throw new Error(`verification "${check.label}": ${statuses.join(', ')} (baseline, candidate, hop), want ${check.status} from all`);
      }
      checks.push({ label: check.label, status: check.status });
    }
    return { body, bytes: Buffer.byteLength(b.text), checks };
  } finally {
    await Promise.all(clients.map((c) => c.close()));
  }
}

/** Summed user + system CPU (µs) of the support children (0 without any). */
async function supportCpu(children) {
  let total = 0;
  for (const child of children) total += await child.cpuUsage();
  return total;
}

function summarize(rounds, side) {
  const mine = rounds.filter((r) => r.side === side);
  return {
    rps: median(mine.map((r) => r.rps)),
    p50: median(mine.map((r) => r.latencyMs.p50)),
    p99: median(mine.map((r) => r.latencyMs.p99)),
    cpuUsPerRequest: median(mine.map((r) => r.cpuUsPerRequest)),
    supportCpuUsPerRequest: median(mine.map((r) => r.supportCpuUsPerRequest)),
    dbCpuUsPerRequest: median(mine.map((r) => r.dbCpuUsPerRequest)),
    rssMiB: median(mine.map((r) => r.rssMiB)),
    maxRssMiB: Math.max(...mine.map((r) => r.rssMiB)),
    requests: mine.reduce((a, r) => a + r.ok, 0),
  };
}

/** Runs `scenario`; `print` receives progress lines. Resolves the result record (see report.mjs). */
export async function runScenario(scenario, { options = DEFAULT_OPTIONS, signal, print = console.log } = {}) {
  const started = [];
  const rounds = [];
  const invalidReasons = [];
  const sideNames = sideNamesOf(scenario);
  const result = { scenario: scenario.name, title: scenario.title, date: new Date().toISOString(), options, labels: Object.fromEntries(sideNames.map((side) => [side, scenario[side].label])) };
  let fixture;
  try {
    print(`\n== ${scenario.name}: ${scenario.title}`);
    print(`   baseline:  ${scenario.baseline.label}\n   candidate: ${scenario.candidate.label}`);
    print(`   load average ${os.loadavg().map((x) => x.toFixed(2)).join(' ')} on ${os.cpus().length} cpus (other work on the machine skews absolute numbers)`);
    result.loadAverageAtStart = os.loadavg();
    fixture = await scenario.setup();
    fixture.support = {};
    for (const s of scenario.support ?? []) {
      const child = await startChildServer({ label: s.label, module: s.module, fixture, logName: `${scenario.name}-${s.label}` });
      started.push(child);
      fixture.support[s.label] = child.url;
    }
    const supports = [...started];
    const sides = [];
    for (const side of sideNames) {
      const child = await startChildServer({ label: `${scenario.name} ${side}`, module: scenario[side].module, fixture, logName: `${scenario.name}-${side}` });
      started.push(child);
      sides.push(child);
    }
    const verified = await verify(scenario, fixture, sides, options.timeoutMs);
    result.verification = { bytes: verified.bytes, checks: verified.checks };
    print(`   logs: ${sides.map((s) => s.logFile).join(', ')}`);
    print(`   verified: identical ${scenario.comparable ? 'comparable parts of ' : ''}${verified.bytes}-byte bodies; ${verified.checks.map((c) => `${c.label} → ${c.status}`).join(', ')}`);

    const request = scenario.request(fixture);
    const expect = { status: 200, body: verified.body, comparable: scenario.comparable };
    const load = (url, warmupMs, durationMs) => runLoad({ baseUrl: url, request, expect, concurrency: options.concurrency, warmupMs, durationMs, maxRequests: options.maxRequests, timeoutMs: options.timeoutMs, signal });
    for (const [i, side] of sideNames.entries()) {
      const primed = await load(sides[i].url, options.primeMs, 0);
      if (primed.warmupErrors.total) invalidReasons.push(`${side} priming: ${JSON.stringify(primed.warmupErrors.byReason)}`);
    }

    const dbPort = dbPortOf(fixture.databaseUrl ?? 'postgres://127.0.0.1:5432/');
    // The database work of a side: its own connections and the support children's (the context a candidate calls).
    const dbCpu = (i) => dbBackendCpu([sides[i].pid, ...supports.map((s) => s.pid)], dbPort);
    print(`   round  side       req/s     p50 ms   p99 ms   cpu µs/req   support µs/req   db µs/req   rss MiB   errors`);
    for (let round = 1; round <= options.rounds; round++) {
      for (const [i, side] of sideNames.entries()) {
        if (signal?.aborted) throw new Error('interrupted');
        const cpuBefore = await sides[i].cpuUsage();
        const supportBefore = await supportCpu(supports);
        const dbBefore = dbCpu(i);
        const r = await load(sides[i].url, options.warmupMs, options.durationMs);
        // Server CPU per request over the whole round (warm-up included, it served those too):
        // it moves much less than req/s when other processes compete for the cores.
        r.cpuUsPerRequest = ((await sides[i].cpuUsage()) - cpuBefore) / (r.requests + r.warmupRequests);
        r.supportCpuUsPerRequest = ((await supportCpu(supports)) - supportBefore) / (r.requests + r.warmupRequests);
        const dbAfter = dbCpu(i);
        r.dbCpuUsPerRequest = dbAfter.size ? dbCpuDelta(dbBefore, dbAfter) / (r.requests + r.warmupRequests) : NaN;
        r.rssMiB = (await sides[i].resourceUsage()).rssBytes / 2 ** 20;
        const errors = r.errors.total + r.warmupErrors.total;
        if (errors) invalidReasons.push(`round ${round} ${side}: ${JSON.stringify({ ...r.warmupErrors.byReason, ...r.errors.byReason })} e.g. ${JSON.stringify(r.errors.examples[0] ?? r.warmupErrors.examples[0])}`);
        rounds.push({ round, side, ...r });
        print(`   ${String(round).padEnd(6)} ${side.padEnd(10)} ${r.rps.toFixed(0).padStart(6)}   ${r.latencyMs.p50.toFixed(2).padStart(6)}   ${r.latencyMs.p99.toFixed(2).padStart(6)}   ${r.cpuUsPerRequest.toFixed(0).padStart(10)}   ${supports.length ? r.supportCpuUsPerRequest.toFixed(0).padStart(10) : '         -'}   ${Number.isFinite(r.dbCpuUsPerRequest) ? r.dbCpuUsPerRequest.toFixed(0).padStart(9) : '        -'}   ${r.rssMiB.toFixed(0).padStart(7)}   ${errors}`);
      }
    }
    const baseline = summarize(rounds, 'baseline');
    const candidate = summarize(rounds, 'candidate');
    const ratioOf = (side, s) => {
      const perRound = [];
      for (let round = 1; round <= options.rounds; round++) {
        const [b, c] = ['baseline', side].map((name) => rounds.find((r) => r.round === round && r.side === name));
        perRound.push(c.rps / b.rps);
      }
      return { rps: s.rps / baseline.rps, rpsMedianOfRounds: median(perRound), p50: s.p50 / baseline.p50, p99: s.p99 / baseline.p99, cpuPerRequest: s.cpuUsPerRequest / baseline.cpuUsPerRequest, dbCpuPerRequest: s.dbCpuUsPerRequest / baseline.dbCpuUsPerRequest, perRoundRps: perRound };
    };
    result.summary = { baseline, candidate, ratio: ratioOf('candidate', candidate) };
    if (scenario.hop) {
      result.summary.hop = summarize(rounds, 'hop');
      result.summary.hopRatio = ratioOf('hop', result.summary.hop);
    }
    result.client = rounds[0]?.client;
  } catch (error) {
    invalidReasons.push(error instanceof Error ? error.message : String(error));
    result.failed = true;
  } finally {
    await stopAndTearDown(started, scenario, fixture, (reason) => invalidReasons.push(reason));
  }
  result.rounds = rounds.map(({ round, side, client: _c, ...r }) => ({ round, side, ...r }));
  result.valid = invalidReasons.length === 0 && rounds.length === sideNames.length * options.rounds;
  result.invalidReasons = invalidReasons;
  return result;
}
