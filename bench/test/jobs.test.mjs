/**
 * Tests of the job-scenario helpers (no PostgreSQL or NATS): NDJSON round trip, backfill pacing
 * from simulator counters, /proc peak-memory parsing, database CPU from /proc (db-cpu.mjs), medians and ratios of job rounds, and the job runner itself on a fake scenario with a child process (alternating
 * sides, per-process peak memory recorded, teardown after a failure). No timing is asserted.
 * Run: npx node --test bench/test/
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { rateOf, runJobScenario, summarizeJobRounds } from '../lib/job-runner.mjs';
import { ndjsonWriter, readNdjson } from '../lib/ndjson.mjs';
import { pacingOf, pacingReport } from '../lib/pacing.mjs';
import { parseVmHwmKiB, readPeakKiB } from '../lib/proc-memory.mjs';
import { cpuUsOfStat, dbBackendCpu, dbCpuDelta, dbPortOf, parseTcpTable } from '../lib/db-cpu.mjs';

const TINY = new URL('./fixtures/tiny-server.mjs', import.meta.url);

describe('NDJSON files', () => {
  it('writes and reads back values in order', async () => {
    const dir = mkdtempSync(join(os.tmpdir(), 'bench-ndjson-'));
    try {
      const file = join(dir, 'x.ndjson');
      const w = ndjsonWriter(file);
      const values = [{ a: 1 }, { b: 'line\nbreak' }, [1, 2, 3]];
      for (const v of values) await w.write(v);
      await w.close();
      const read = [];
      for await (const v of readNdjson(file)) read.push(v);
      assert.deepEqual(read, values);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('pacing', () => {
  const counts = (requests, rateLimited, firstAtMs, lastAtMs) => ({ requests, rateLimited, byStatus: {}, firstAtMs, lastAtMs });

  it('rates accepted requests over the active span against the allowed rate; 429 share of all', () => {
    // 51 requests over 10 s, 11 of them refused: 40 accepted → (40 - 1) / 10 = 3.9/s.
    const p = pacingOf(counts(51, 11, 1_000, 11_000), 5);
    assert.equal(p.spanSeconds, 10);
    assert.equal(p.acceptedPerSecond, 3.9);
    assert.equal(p.offeredPerSecond, 5);
    assert.equal(p.share429, 11 / 51);
    assert.equal(p.achievedOfAllowed, 3.9 / 5);
  });

  it('has no rate for a single request or an empty counter', () => {
    assert.ok(Number.isNaN(pacingOf(counts(1, 0, 5, 5), 5).acceptedPerSecond));
    const empty = pacingOf(counts(0, 0, null, null), 5);
    assert.equal(empty.share429, 0);
    assert.ok(Number.isNaN(empty.acceptedPerSecond));
  });

  it('judges each path against its tier, others against the global limit', () => {
    const account = { ...counts(30, 5, 0, 10_000), paths: { '/trips/stream': counts(20, 5, 0, 10_000), '/v1/fleet/trips': counts(10, 0, 0, 9_000) } };
    const r = pacingReport(account, { globalAllowed: 150, tiers: { '/trips/stream': 5 } });
    assert.equal(r.total.allowedPerSecond, 150);
    assert.equal(r.paths['/trips/stream'].allowedPerSecond, 5);
    assert.equal(r.paths['/v1/fleet/trips'].allowedPerSecond, 150);
    assert.equal(r.paths['/trips/stream'].acceptedPerSecond, 1.4);
  });
});

describe('peak memory from /proc', () => {
  it('parses VmHWM in KiB', () => {
    assert.equal(parseVmHwmKiB('Name:\tnode\nVmPeak:\t  999 kB\nVmHWM:\t  123456 kB\nVmRSS:\t 100 kB\n'), 123456);
    assert.equal(parseVmHwmKiB('Name:\tnode\n'), null);
  });

  it('reads this process (Linux) or answers null', () => {
    const kib = readPeakKiB(process.pid);
    if (kib !== null) assert.ok(kib > 0);
    assert.equal(readPeakKiB(2 ** 30), null);
  });
});

describe('database CPU from /proc', () => {
  it('parses ports and inodes of the TCP table', () => {
    const text = `  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
   0: 0100007F:1538 0100007F:D431 01 00000000:00000000 00:00000000 00000000   106        0 48121 1 0000000000000000 20 4 0 10 -1
   1: 0100007F:D431 0100007F:1538 01 00000000:00000000 00:00000000 00000000     0        0 48120 1 0000000000000000 20 4 30 10 -1`;
    assert.deepEqual(parseTcpTable(text), [
      { localPort: 5432, remotePort: 54321, inode: '48121' },
      { localPort: 54321, remotePort: 5432, inode: '48120' },
    ]);
  });

  it('reads user + system ticks of a stat line, a command with spaces and parentheses included', () => {
    const stat = '4242 (postgres: x (y) idle) S 1 2 3 4 5 6 7 8 9 10 250 50 0 0 20 0 1 0 100 2000 300';
    assert.equal(cpuUsOfStat(stat), 300 * 10_000);
  });

  it('counts a backend new in the second sample from zero, and answers nothing for a process without database sockets', () => {
    assert.equal(dbCpuDelta(new Map([['1', 100]]), new Map([['1', 250], ['2', 40]])), 190);
    assert.equal(dbBackendCpu([process.pid]).size, 0);
    assert.equal(dbPortOf('postgres://postgres@127.0.0.1/postgres'), 5432);
    assert.equal(dbPortOf('postgres://postgres@127.0.0.1:6543/postgres'), 6543);
  });
});

describe('job rounds', () => {
  it('medians per side and candidate/baseline ratios', () => {
    const rounds = [
      { round: 1, side: 'baseline', units: 100, ms: 1000, rate: 100 },
      { round: 1, side: 'candidate', units: 100, ms: 4000, rate: 25 },
      { round: 2, side: 'baseline', units: 100, ms: 500, rate: 200 },
      { round: 2, side: 'candidate', units: 100, ms: 2000, rate: 50 },
      { round: 3, side: 'baseline', units: 100, ms: 2000, rate: 50 },
      { round: 3, side: 'candidate', units: 100, ms: 2500, rate: 40 },
    ];
    const s = summarizeJobRounds(rounds, ['baseline', 'candidate']);
    assert.equal(s.baseline.rate, 100);
    assert.equal(s.candidate.rate, 40);
    assert.equal(s.ratio.rate, 0.4);
    assert.deepEqual(s.ratio.perRound, [0.25, 0.25, 0.8]);
    assert.equal(s.ratio.rateMedianOfRounds, 0.25);
    assert.equal(summarizeJobRounds(rounds.filter((r) => r.side === 'candidate'), ['candidate']).ratio, undefined);
    assert.equal(rateOf(500, 2000), 250);
    assert.ok(Number.isNaN(rateOf(5, 0)));
  });

  function fakeJob({ failAt } = {}) {
    const calls = [];
    return {
      calls,
      scenario: {
        kind: 'job',
        name: 'test-job',
        title: 'fake job',
        unit: 'rows',
        rounds: 2,
        baseline: { label: 'a' },
        candidate: { label: 'b' },
        support: [{ label: 'tiny', module: TINY }],
        setup: async () => ({ body: '{}' }),
        ready: async (fixture) => void calls.push(`ready ${typeof fixture.support.tiny}`),
        prepare: async (_f, side, round) => void calls.push(`prepare ${side} ${round}`),
        run: async (_f, side, { round }) => {
          calls.push(`run ${side} ${round}`);
          if (failAt === `${side} ${round}`) throw new Error('boom in run');
          return { units: 10, ms: side === 'baseline' ? 10 : 40 };
        },
        teardown: async () => void calls.push('teardown'),
      },
    };
  }

  it('alternates sides, reports the ratio and each child process’s peak memory, tears down', async () => {
    const { scenario, calls } = fakeJob();
    const result = await runJobScenario(scenario, { print: () => undefined });
    assert.equal(result.valid, true, result.invalidReasons.join('; '));
    assert.deepEqual(
      calls.filter((c) => c.startsWith('run')),
      ['run baseline 1', 'run candidate 1', 'run baseline 2', 'run candidate 2'],
    );
    assert.equal(calls[0], 'ready string');
    assert.equal(calls.at(-1), 'teardown');
    assert.equal(result.summary.ratio.rate, 0.25);
    assert.ok(result.peakMemory.tiny.roundPeakMiB > 0 && result.peakMemory.tiny.startupPeakMiB > 0);
  });

  it('is invalid when a round throws, and still stops the children and tears down', async () => {
    const { scenario, calls } = fakeJob({ failAt: 'candidate 1' });
    const result = await runJobScenario(scenario, { print: () => undefined });
    assert.equal(result.valid, false);
    assert.match(result.invalidReasons.join('\n'), /boom in run/);
    assert.equal(calls.at(-1), 'teardown');
  });
});
