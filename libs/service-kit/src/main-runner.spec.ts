import { describe, expect, it } from '@jest/globals';
import { STREAMS } from '@switchyard/messaging';
import { ConfigError, streamsFromEnv } from './config.js';
import { parseMainEnv, shutdownWithin } from './main-runner.js';

const gateway = { portVariable: 'PORT', defaultPort: 3000, defaultHost: '127.0.0.1', metricsPort: { variable: 'METRICS_PORT', defaultPort: 9464 } } as const;
const context = { portVariable: 'HEALTH_PORT', defaultPort: 3102 } as const;

describe('parseMainEnv', () => {
  it('gateway: /metrics on the internal METRICS_PORT, default 9464, on the same HOST as the public port', () => {
    // Loopback unless HOST says otherwise (the images set HOST=0.0.0.0).
    expect(parseMainEnv(gateway, {})).toMatchObject({ http: { port: 3000, host: '127.0.0.1' }, metrics: { port: 9464, host: '127.0.0.1' } });
    expect(parseMainEnv(gateway, { PORT: '8000', METRICS_PORT: '9100', HOST: '10.0.0.5' })).toMatchObject({
      http: { port: 8000, host: '10.0.0.5' },
      metrics: { port: 9100, host: '10.0.0.5' },
    });
  });

  it('gateway: METRICS_PORT=0 serves /metrics nowhere, and the public port keeps none either', () => {
    expect(parseMainEnv(gateway, { METRICS_PORT: '0' })).toMatchObject({ http: { port: 3000 }, metrics: 'none' });
    expect(parseMainEnv(gateway, { PORT: '0' })).toMatchObject({ http: undefined, metrics: { port: 9464 } });
  });

  it('gateway: a bad METRICS_PORT, or one equal to PORT, is a ConfigError naming it', () => {
    for (const bad of ['abc', '-1', '65536', '1.5']) {
      const error = (() => {
        try {
          parseMainEnv(gateway, { METRICS_PORT: bad, LOG_LEVEL: 'loud' });
        } catch (e) {
          return e;
        }
      })();
      expect(error).toBeInstanceOf(ConfigError);
      // One error lists every bad variable.
      expect((error as ConfigError).problems.map((p) => p.split(':')[0]).sort()).toEqual(['LOG_LEVEL', 'METRICS_PORT']);
    }
    expect(() => parseMainEnv(gateway, { PORT: '9464' })).toThrow(new ConfigError(['METRICS_PORT: must differ from PORT (9464)']));
  });

  it('NATS_STREAM_MAX_BYTES_<STREAM>: a deployment byte limit per stream (decision 0026), the others keep their default; below 1 MiB is named', () => {
    const { env } = parseMainEnv(context, { NATS_STREAM_MAX_BYTES_INGEST: '8589934592' });
    const streams = streamsFromEnv(env);
    expect(streams.find((s) => s.name === 'INGEST')).toMatchObject({ maxBytes: 8_589_934_592, discard: 'new', maxAgeMs: STREAMS.INGEST.maxAgeMs });
    expect(streams.find((s) => s.name === 'DLQ')).toEqual(STREAMS.DLQ);
    expect(streams.map((s) => s.name)).toEqual(Object.keys(STREAMS));
    const bad = { NATS_STREAM_MAX_BYTES_DLQ: '1000', NATS_STREAM_MAX_BYTES_EVENTS: '1GiB' };
    expect(() => parseMainEnv(context, bad)).toThrow(/NATS_STREAM_MAX_BYTES_EVENTS: .*\n.*NATS_STREAM_MAX_BYTES_DLQ: /);
  });

  it('NATS_STREAM_REPLICAS[_<STREAM>]: the copies every process expects of each stream (decision 0034), one stream before all; 0 or 6 is named', () => {
    const { env } = parseMainEnv(context, { NATS_STREAM_REPLICAS: '3', NATS_STREAM_REPLICAS_DLQ: '5' });
    const streams = streamsFromEnv(env);
    expect(streams.find((s) => s.name === 'INGEST')).toEqual({ ...STREAMS.INGEST, replicas: 3 });
    expect(streams.find((s) => s.name === 'DLQ')).toEqual({ ...STREAMS.DLQ, replicas: 5 });
    expect(streamsFromEnv(parseMainEnv(context, {}).env).every((s) => s.replicas === undefined)).toBe(true);
    expect(() => parseMainEnv(context, { NATS_STREAM_REPLICAS: '0', NATS_STREAM_REPLICAS_EVENTS: '6' })).toThrow(/NATS_STREAM_REPLICAS: .*\n.*NATS_STREAM_REPLICAS_EVENTS: |NATS_STREAM_REPLICAS_EVENTS: .*\n.*NATS_STREAM_REPLICAS: /);
  });

  it('context: its one port serves /metrics (no METRICS_PORT read), 0 disables it', () => {
    expect(parseMainEnv(context, { METRICS_PORT: 'ignored' })).toMatchObject({ http: { port: 3102, host: '0.0.0.0' }, metrics: undefined });
    expect(parseMainEnv(context, { HEALTH_PORT: '0' })).toMatchObject({ http: undefined, metrics: undefined });
  });

  it('NATS_*: one authentication method, user with password, certificate with key, readable files; named with the other bad variables, never echoing a secret', () => {
    const bad = (env: NodeJS.ProcessEnv) => {
      try {
        parseMainEnv(context, env);
        return [];
      } catch (e) {
        expect((e as Error).message).not.toContain('hunter2');
        return (e as ConfigError).problems.sort();
      }
    };
    expect(bad({ NATS_USER: 'svc', NATS_PASSWORD: 'hunter2', NATS_INBOX_PREFIX: 'svc.inbox' })).toEqual([]);
    expect(bad({ NATS_USER: 'svc', LOG_LEVEL: 'loud' })).toEqual([expect.stringMatching(/^LOG_LEVEL:/), 'NATS_PASSWORD: required with NATS_USER']);
    expect(bad({ NATS_PASSWORD: 'hunter2' })).toEqual(['NATS_USER: required with NATS_PASSWORD']);
    expect(bad({ NATS_USER: 'svc', NATS_PASSWORD: 'hunter2', NATS_TOKEN: 'hunter2' })).toEqual([expect.stringMatching(/^NATS_TOKEN: set one of/)]);
    expect(bad({ NATS_TLS_CERT_FILE: '/nonexistent/client.pem', NATS_INBOX_PREFIX: '_INBOX.>' })).toEqual([
      expect.stringMatching(/^NATS_INBOX_PREFIX:/),
      'NATS_TLS_CERT_FILE: no readable file at that path',
      'NATS_TLS_KEY_FILE: required with NATS_TLS_CERT_FILE',
    ]);
  });
});

describe('shutdownWithin (SHUTDOWN_DEADLINE_MS)', () => {
  const quiet = { error: () => undefined };

  it('exits 0 when the orderly shutdown finishes in time', async () => {
    await expect(shutdownWithin(1_000, () => new Promise((resolve) => setTimeout(resolve, 20)), quiet)).resolves.toBe(0);
  });

  it('exits 1 at the deadline when the shutdown hangs (mutation tried: no deadline race → the test times out)', async () => {
    const startedAt = Date.now();
    await expect(shutdownWithin(200, () => new Promise<void>(() => undefined), quiet)).resolves.toBe(1);
    expect(Date.now() - startedAt).toBeLessThan(1_000);
  });

  it('exits 1 when the shutdown fails', async () => {
    await expect(shutdownWithin(1_000, () => Promise.reject(new Error('drain failed')), quiet)).resolves.toBe(1);
  });
});
