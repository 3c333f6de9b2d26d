/**
 * The load generator: a fixed number of workers, each with one request in flight over keep-alive
 * connections to 127.0.0.1, for a bounded time AND a bounded request count. Every response is
 * checked — status, and the exact body when one is expected — and anything else is an error that
 * makes the round invalid. Latency is measured from just before the request is issued to the last
 * byte of the body.
 *
 * Client: undici's Pool when it can be imported (one connection per worker, no pipelining), else
 * node:http with a keep-alive Agent of the same size. undici is in node_modules only as a
 * dependency of testcontainers, hence the fallback; BENCH_CLIENT=http forces it.
 */
import http from 'node:http';
import { performance } from 'node:perf_hooks';
import { summarizeLatencies } from './stats.mjs';

/** One client per round; `send` resolves `{ status, text }` or rejects on a transport error. */
export async function createClient(baseUrl, { connections, timeoutMs, kind = process.env.BENCH_CLIENT ?? 'undici' }) {
  const url = new URL(baseUrl);
  if (url.hostname !== '127.0.0.1') throw new Error(`benchmark traffic stays on 127.0.0.1, got ${url.hostname}`);
  if (kind === 'undici') {
    const undici = await import('undici').catch(() => undefined);
    if (undici) {
      const pool = new undici.Pool(url.origin, { connections, pipelining: 1, headersTimeout: timeoutMs, bodyTimeout: timeoutMs, connectTimeout: timeoutMs });
      return {
        kind: 'undici',
        async send({ method, path, headers }) {
          const res = await pool.request({ method, path, headers });
          return { status: res.statusCode, text: await res.body.text() };
        },
        close: () => pool.close(),
      };
    }
  }
  const agent = new http.Agent({ keepAlive: true, maxSockets: connections });
  return {
    kind: 'node:http',
    send: ({ method, path, headers }) =>
      new Promise((resolve, reject) => {
        const req = http.request({ host: url.hostname, port: url.port, method, path, headers, agent, timeout: timeoutMs }, (res) => {
          const chunks = [];
          res.on('data', (chunk) => chunks.push(chunk));
          res.on('end', () => resolve({ status: res.statusCode, text: Buffer.concat(chunks).toString('utf8') }));
          res.on('error', reject);
        });
        req.on('timeout', () => req.destroy(new Error(`no response within ${timeoutMs} ms`)));
        req.on('error', reject);
        req.end();
      }),
    close: async () => agent.destroy(),
  };
}

/** Counts errors by reason and keeps the first few examples (bodies cut to 200 chars). */
function errorLog() {
  const byReason = {};
  const examples = [];
  return {
    byReason,
    examples,
    add(reason, detail) {
      byReason[reason] = (byReason[reason] ?? 0) + 1;
      if (examples.length < 3) examples.push({ reason, detail: String(detail).slice(0, 200) });
    },
    get total() {
      return Object.values(byReason).reduce((a, b) => a + b, 0);
    },
  };
}

/**
 * Runs `concurrency` workers against `baseUrl` for `warmupMs` (discarded) then `durationMs`
 * (recorded), stopping early at `maxRequests` or when `signal` aborts. Returns throughput,
 * latency percentiles (ms) and errors of the recorded phase, plus warm-up errors.
 */
export async function runLoad({ baseUrl, request, expect, concurrency, warmupMs, durationMs, maxRequests, timeoutMs, signal }) {
  const client = await createClient(baseUrl, { connections: concurrency, timeoutMs });
  const warmupErrors = errorLog();
  const errors = errorLog();
  const samples = new Float64Array(maxRequests);
  let recorded = 0;
  let issued = 0;
  let warmupRequests = 0;

  const check = (res, log) => {
    if (res.status !== expect.status) log.add(`status_${res.status}`, res.text);
    else if (expect.body !== undefined && (expect.comparable ? expect.comparable(res.text) : res.text) !== expect.body) log.add('body_mismatch', res.text);
    else return true;
    return false;
  };

  async function phase(ms, record) {
    const deadline = performance.now() + ms;
    const log = record ? errors : warmupErrors;
    const worker = async () => {
      while (!signal?.aborted && performance.now() < deadline && (!record || issued < maxRequests)) {
        if (record) issued++;
        else warmupRequests++;
        const t0 = performance.now();
        try {
          const res = await client.send(request);
          const t1 = performance.now();
          if (check(res, log) && record) samples[recorded++] = t1 - t0;
        } catch (error) {
          log.add('transport', error?.code ?? error?.message ?? error);
        }
      }
    };
    const started = performance.now();
    await Promise.all(Array.from({ length: concurrency }, worker));
    return performance.now() - started;
  }

  try {
    if (warmupMs > 0) await phase(warmupMs, false);
    const elapsedMs = await phase(durationMs, true);
    const latency = summarizeLatencies(samples, recorded);
    return {
      client: client.kind,
      requests: issued,
      ok: recorded,
      warmupRequests,
      elapsedMs,
      rps: recorded / (elapsedMs / 1000),
      latencyMs: latency,
      errors: { total: errors.total, byReason: errors.byReason, examples: errors.examples },
      warmupErrors: { total: warmupErrors.total, byReason: warmupErrors.byReason, examples: warmupErrors.examples },
    };
  } finally {
    await client.close();
  }
}
