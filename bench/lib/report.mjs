/**
 * Presents a scenario result: a summary table on stdout and the full record (options, machine,
 * every round, medians, ratios, validity) as JSON under bench/results/ (git-ignored). Nothing
 * secret is written: results carry labels and numbers, never the fixture or request headers.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { RESULTS_DIR } from './child-server.mjs';

const f0 = (x) => (Number.isFinite(x) ? x.toFixed(0) : 'n/a');
const f2 = (x) => (Number.isFinite(x) ? x.toFixed(2) : 'n/a');

export function machine() {
  const cpus = os.cpus();
  return { node: process.version, platform: `${os.platform()} ${os.release()}`, cpus: cpus.length, cpuModel: cpus[0]?.model, memoryGb: Math.round(os.totalmem() / 2 ** 30) };
}

export function printSummary(result, print = console.log) {
  const { summary, options } = result;
  print(`   -- ${result.scenario}: medians of ${options.rounds} rounds × ${options.durationMs / 1000} s, ${options.concurrency} in flight, client ${result.client ?? 'n/a'}`);
  if (summary) {
    print(`   side       label                          req/s    p50 ms   p99 ms   cpu µs/req   support cpu µs/req   db cpu µs/req   rss MiB (max)`);
    for (const side of ['baseline', 'candidate', 'hop'].filter((name) => summary[name])) {
      const s = summary[side];
      print(`   ${side.padEnd(10)} ${result.labels[side].padEnd(30)} ${f0(s.rps).padStart(6)}   ${f2(s.p50).padStart(6)}   ${f2(s.p99).padStart(6)}   ${f0(s.cpuUsPerRequest).padStart(10)}   ${f0(s.supportCpuUsPerRequest).padStart(10)}   ${f0(s.dbCpuUsPerRequest).padStart(10)}   ${f0(s.rssMiB).padStart(5)} (${f0(s.maxRssMiB)})`);
    }
    for (const [side, r] of [['candidate', summary.ratio], ['hop', summary.hopRatio]].filter(([, ratio]) => ratio)) {
      const per = r.perRoundRps.filter(Number.isFinite);
      print(`   ratio ${side}/baseline: req/s ${f2(r.rps)} (median of per-round ratios ${f2(r.rpsMedianOfRounds)}, range ${f2(Math.min(...per))}–${f2(Math.max(...per))}), p50 ${f2(r.p50)}x, p99 ${f2(r.p99)}x, server cpu per request ${f2(r.cpuPerRequest)}x, db cpu per request ${f2(r.dbCpuPerRequest)}x`);
    }
  }
  print(`   valid: ${result.valid ? 'yes' : 'NO'}`);
  for (const reason of result.invalidReasons) print(`     - ${reason}`);
}

/** Writes `<scenario>-<timestamp>.json` and returns its path. */
export function writeResult(result) {
  mkdirSync(RESULTS_DIR, { recursive: true });
  const file = join(RESULTS_DIR, `${result.scenario}-${result.date.replaceAll(':', '-').replace(/\.\d+Z$/, 'Z')}.json`);
  writeFileSync(file, `${JSON.stringify({ ...result, machine: machine() }, null, 2)}\n`);
  return file;
}
