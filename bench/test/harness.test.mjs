/**
 * Tests of the benchmark harness itself (no PostgreSQL or NATS): statistics, that the load
 * generator counts every non-200 or wrong body as an error with both clients, that child servers
 * start, answer and stop (and that a failed start is reported), and that the runner marks a
 * scenario invalid when the two sides disagree, still tearing it down.
 * Run: npx node --test bench/test/
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { readFileSync } from 'node:fs';
import { APP_NODE_FLAGS, nodeFlagsFor, startChildServer } from '../lib/child-server.mjs';
import { createClient, runLoad } from '../lib/load.mjs';
import { runScenario } from '../lib/runner.mjs';
import { median, percentile } from '../lib/stats.mjs';

const TINY = new URL('./fixtures/tiny-server.mjs', import.meta.url);
const QUICK = { concurrency: 4, rounds: 2, warmupMs: 50, durationMs: 200, primeMs: 50, maxRequests: 100_000, timeoutMs: 2_000 };

describe('stats', () => {
  it('nearest-rank percentiles and medians', () => {
    const xs = Float64Array.from({ length: 100 }, (_, i) => i + 1);
    assert.equal(percentile(xs, 0.5), 50);
    assert.equal(percentile(xs, 0.99), 99);
    assert.equal(percentile(xs, 1), 100);
    assert.ok(Number.isNaN(percentile(new Float64Array(0), 0.5)));
    assert.equal(median([3, 1, 2]), 2);
    assert.equal(median([4, 1, 3, 2]), 2.5);
  });
});

describe('load generator', () => {
  for (const kind of ['undici', 'http']) {
    it(`${kind}: counts 500s and wrong bodies as errors`, async () => {
      const server = await startChildServer({ label: `test-${kind}`, module: TINY, fixture: { body: '{"ok":true}', failEvery: 10 } });
      try {
        process.env.BENCH_CLIENT = kind;
        const base = { baseUrl: server.url, request: { method: 'GET', path: '/', headers: {} }, concurrency: 4, warmupMs: 0, durationMs: 300, maxRequests: 100_000, timeoutMs: 2_000 };
        // A request count, not a duration: on a loaded machine 300 ms held as few as 4 requests.
        const r = await runLoad({ ...base, durationMs: 60_000, maxRequests: 200, expect: { status: 200, body: '{"ok":true}' } });
        assert.equal(r.client, kind === 'http' ? 'node:http' : 'undici');
        assert.equal(r.requests, 200);
        assert.equal(r.ok + r.errors.total, r.requests);
        assert.ok(r.errors.byReason.status_500 >= Math.floor(r.requests / 10) - 1);
        assert.ok(r.latencyMs.p50 > 0 && r.latencyMs.p99 >= r.latencyMs.p50);
        const wrong = await runLoad({ ...base, durationMs: 60_000, maxRequests: 20, expect: { status: 200, body: '{"ok":false}' } });
        assert.equal(wrong.ok, 0);
        assert.ok(wrong.errors.byReason.body_mismatch > 0);
        const capped = await runLoad({ ...base, maxRequests: 20, expect: { status: 200 } });
        assert.equal(capped.requests, 20);
      } finally {
        delete process.env.BENCH_CLIENT;
        await server.stop();
      }
    });
  }

  it('refuses to send traffic anywhere but 127.0.0.1', async () => {
    await assert.rejects(createClient('http://10.0.0.1:80', { connections: 1, timeoutMs: 100 }), /127\.0\.0\.1/);
  });
});

describe('child servers', () => {
  it('reports a failed start with the child log', async () => {
    await assert.rejects(startChildServer({ label: 'test-broken', module: TINY, fixture: { startError: 'boom at start' } }), /boom at start/);
  });

  it("gives an app's child the Node flags the image's entrypoint gives that app", () => {
    const entrypoint = readFileSync(new URL('../../deploy/docker/entrypoint.sh', import.meta.url), 'utf8');
    const shipped = Object.fromEntries([...entrypoint.matchAll(/^\s+([a-z-]+)\) heap='([^']*)' ;;$/gm)].map(([, app, flags]) => [app, flags.split(' ').filter(Boolean)]));
    assert.deepEqual(shipped, APP_NODE_FLAGS);
    assert.deepEqual(nodeFlagsFor(new URL('../servers/context-service.mjs?service=telemetry-ingest', import.meta.url)), ['--max-old-space-size=256', '--max-semi-space-size=16']);
    assert.deepEqual(nodeFlagsFor(TINY), []);
  });
});

function fakeScenario(candidateBody) {
  const torn = [];
  return {
    torn,
    scenario: {
      name: 'test-fake',
      title: 'fake',
      baseline: { label: 'a', module: TINY },
      candidate: { label: 'b', module: TINY },
      setup: async () => ({ body: '{"n":1}' }),
      request: () => ({ method: 'GET', path: '/', headers: {} }),
      checks: () => [{ label: 'missing', request: { method: 'GET', path: '/missing', headers: {} }, status: 404 }],
      teardown: async (fixture) => void torn.push(fixture),
      // The candidate's body differs only when asked to: the same module serves both sides.
      ...(candidateBody ? { candidate: { label: 'b', module: new URL(`${TINY.href}?body=${encodeURIComponent(candidateBody)}`) } } : {}),
    },
  };
}

describe('runner', () => {
  it('measures alternating rounds and reports medians and the ratio', async () => {
    const { scenario, torn } = fakeScenario();
    const lines = [];
    const result = await runScenario(scenario, { options: QUICK, print: (l) => lines.push(l) });
    assert.equal(result.valid, true, result.invalidReasons.join('; '));
    assert.deepEqual(result.rounds.map((r) => r.side), ['baseline', 'candidate', 'baseline', 'candidate']);
    assert.ok(result.summary.ratio.rps > 0);
    assert.ok(result.rounds.every((r) => r.cpuUsPerRequest > 0 && Number.isFinite(r.cpuUsPerRequest)));
    assert.equal(torn.length, 1);
  });

  it('is invalid when the sides answer different bodies, and still tears down', async () => {
    const { scenario, torn } = fakeScenario('{"n":2}');
    // The override module reads the body from its URL, see fixtures/tiny-server.mjs.
    const result = await runScenario(scenario, { options: QUICK, print: () => undefined });
    assert.equal(result.valid, false);
    assert.match(result.invalidReasons.join('\n'), /bodies differ/);
    assert.equal(result.rounds.length, 0);
    assert.equal(torn.length, 1);
  });
});
