import { describe, expect, it } from '@jest/globals';
import { ConfigError } from './config.js';
import { parseMainEnv } from './main-runner.js';

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

  it('context: its one port serves /metrics (no METRICS_PORT read), 0 disables it', () => {
    expect(parseMainEnv(context, { METRICS_PORT: 'ignored' })).toMatchObject({ http: { port: 3102, host: '0.0.0.0' }, metrics: undefined });
    expect(parseMainEnv(context, { HEALTH_PORT: '0' })).toMatchObject({ http: undefined, metrics: undefined });
  });
});
