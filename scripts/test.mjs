// Runs the jest suites (unit, integration on the real PostgreSQL and NATS, e2e) and prints one
// closing line "N passed, N failed" that CI reads. Flags: --unit (spec files only), --project <root>.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
const args = process.argv.slice(2);
// One results file per run, so concurrent runs never read each other's summary.
const results = path.join(os.tmpdir(), `switchyard-jest-${process.pid}.json`);
// Two workers on the 2-core CI machine: integration suites mostly wait on PostgreSQL and NATS.
// A worker is replaced once it holds more than 2 GB after a suite: ESM suites under
// --experimental-vm-modules leave their module graphs behind, and a worker that had run ~120 of
// them crashed out of memory in a trivial spec (CI, 2026-11-28).
const jestArgs = ['--experimental-vm-modules', path.join(root, 'node_modules/jest/bin/jest.js'), '--json', `--outputFile=${results}`, '--maxWorkers=2', '--workerIdleMemoryLimit=2GB'];
const passthrough = [];
for (let i = 0; i < args.length; i++) {
  if (args[i] === '--project') jestArgs.push('--config', path.join(root, args[++i], 'jest.config.js'));
  else if (args[i] === '--unit') jestArgs.push('--testPathPatterns', '\\.spec\\.ts$');
  else passthrough.push(args[i]);
}
jestArgs.push(...passthrough);
rmSync(results, { force: true });
// The workspace's pinned Node 24 (the `node` devDependency), whichever node started this script.
const pinnedNode = path.join(root, 'node_modules/node/bin/node');
const run = spawnSync(existsSync(pinnedNode) ? pinnedNode : process.execPath, jestArgs, {
  cwd: root,
  stdio: ['ignore', 'inherit', 'inherit'],
  env: { ...process.env, TZ: 'UTC', NODE_NO_WARNINGS: '1' },
});
let summary;
try {
  summary = JSON.parse(readFileSync(results, 'utf8'));
} catch {
  console.log('0 passed, 1 failed');
  process.exit(run.status || 1);
}
const failedSuites = summary.numFailedTestSuites ?? 0;
let passed = summary.numPassedTests;
let failed = summary.numFailedTests + (failedSuites && !summary.numFailedTests ? failedSuites : 0);
let status = run.status ?? 1;

// The benchmark harness's own tests (plain node:test, no services) run with the full suite.
if (!args.includes('--unit') && !args.includes('--project')) {
  const bench = spawnSync(existsSync(pinnedNode) ? pinnedNode : process.execPath, ['--test', '--test-reporter=tap', 'bench/test/*.test.mjs'], { cwd: root, encoding: 'utf8' });
  const count = (name) => Number(new RegExp(`^# ${name} (\\d+)$`, 'm').exec(bench.stdout)?.[1] ?? 0);
  console.log(`bench harness tests: ${count('pass')} passed, ${count('fail')} failed`);
  if (bench.status !== 0) process.stdout.write(bench.stdout.split('\n').filter((l) => l.startsWith('not ok') || l.includes('error')).join('\n') + '\n');
  passed += count('pass');
  failed += count('fail') + (bench.status !== 0 && count('fail') === 0 ? 1 : 0);
  if (bench.status !== 0) status = status || 1;
}
console.log(`${passed} passed, ${failed} failed${summary.numPendingTests ? `, ${summary.numPendingTests} skipped` : ''}`);
process.exit(status);
