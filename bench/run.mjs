/**
 * `npm run bench [-- scenario...]` (after `npm run build`): runs every scenario in
 * bench/scenarios/ (or the named ones) one after another, prints a table per scenario and writes
 * its JSON record under bench/results/. Exit code 1 when any scenario failed or was invalid.
 * Ctrl-C ends the current round early, marks the result invalid and still tears down; a second
 * Ctrl-C exits at once (children then exit on their own when IPC disconnects).
 * Knobs (environment): BENCH_ROUNDS, BENCH_DURATION_MS, BENCH_WARMUP_MS, BENCH_PRIME_MS,
 * BENCH_CONCURRENCY, BENCH_CLIENT=undici|http. Job scenarios (`kind: 'job'`, lib/job-runner.mjs)
 * use only BENCH_ROUNDS (default: the scenario's own) plus their own knobs (e.g. BENCH_OBSERVATIONS).
 */
import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { printJobSummary, runJobScenario } from './lib/job-runner.mjs';
import { DEFAULT_OPTIONS, runScenario } from './lib/runner.mjs';
import { printSummary, writeResult } from './lib/report.mjs';

const SCENARIO_DIR = new URL('./scenarios/', import.meta.url);

function positiveInt(name, fallback, max) {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1 || n > max) throw new Error(`${name} must be an integer in 1..${max}, got "${raw}"`);
  return n;
}

function options() {
  return Object.freeze({
    ...DEFAULT_OPTIONS,
    rounds: positiveInt('BENCH_ROUNDS', DEFAULT_OPTIONS.rounds, 50),
    durationMs: positiveInt('BENCH_DURATION_MS', DEFAULT_OPTIONS.durationMs, 120_000),
    warmupMs: positiveInt('BENCH_WARMUP_MS', DEFAULT_OPTIONS.warmupMs, 60_000),
    primeMs: positiveInt('BENCH_PRIME_MS', DEFAULT_OPTIONS.primeMs, 60_000),
    concurrency: positiveInt('BENCH_CONCURRENCY', DEFAULT_OPTIONS.concurrency, 1024),
  });
}

const available = readdirSync(fileURLToPath(SCENARIO_DIR))
  .filter((file) => file.endsWith('.mjs'))
  .map((file) => file.slice(0, -'.mjs'.length))
  .sort();
const wanted = process.argv.slice(2).filter((arg) => !arg.startsWith('-'));
const unknown = wanted.filter((name) => !available.includes(name));
if (unknown.length) {
  console.error(`unknown scenario(s): ${unknown.join(', ')}; available: ${available.join(', ')}`);
  process.exit(2);
}

const controller = new AbortController();
for (const sig of ['SIGINT', 'SIGTERM']) {
  process.on(sig, () => {
    if (controller.signal.aborted) process.exit(130);
    console.error(`\n${sig}: stopping the current round, then cleaning up (again to exit now)`);
    controller.abort();
  });
}

let failed = 0;
const opts = options();
for (const name of wanted.length ? wanted : available) {
  const { default: scenario } = await import(new URL(`${name}.mjs`, SCENARIO_DIR).href);
  const job = scenario.kind === 'job';
  const jobRounds = process.env.BENCH_ROUNDS ? opts.rounds : undefined;
  const result = job ? await runJobScenario(scenario, { options: { rounds: jobRounds }, signal: controller.signal }) : await runScenario(scenario, { options: opts, signal: controller.signal });
  (job ? printJobSummary : printSummary)(result);
  console.log(`   results: ${writeResult(result)}`);
  if (!result.valid) failed++;
  if (controller.signal.aborted) break;
}
// Handles of the parent (ORM pools, NATS clients in @switchyard/testing) are closed by now; exit
// explicitly anyway so a stray timer in a library cannot keep `npm run bench` alive.
process.exit(failed ? 1 : 0);
