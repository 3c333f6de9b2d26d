import { describe, expect, it } from '@jest/globals';
import { resolveTestServicesWith, type ServiceProbes } from './services.js';

const refuse = () => Promise.reject(new Error('connect ECONNREFUSED'));
const noRuntime = () => Promise.reject(new Error('Could not find a working container runtime strategy'));

describe('resolveTestServicesWith', () => {
  it('prefers DATABASE_URL and NATS_URL over everything else', async () => {
    const probes: ServiceProbes = { env: { DATABASE_URL: 'postgres://a@db/x', NATS_URL: 'nats://bus:4222' }, probe: refuse, startContainer: noRuntime };
    expect(await resolveTestServicesWith(probes)).toEqual({ databaseUrl: 'postgres://a@db/x', natsUrl: 'nats://bus:4222' });
  });

  it('uses local servers that answer the TCP probe', async () => {
    const probed: string[] = [];
    const probes: ServiceProbes = { env: {}, probe: async (host, port) => void probed.push(`${host}:${port}`), startContainer: noRuntime };
    expect(await resolveTestServicesWith(probes)).toEqual({ databaseUrl: 'postgres://postgres@127.0.0.1:5432/postgres', natsUrl: 'nats://127.0.0.1:4222' });
    expect(probed).toEqual(['127.0.0.1:5432', '127.0.0.1:4222']);
  });

  it('falls back to containers per service', async () => {
    const probes: ServiceProbes = {
      env: { NATS_URL: 'nats://env:4222' },
      probe: refuse,
      startContainer: async (kind) => ({ url: `${kind}://container`, stop: async () => undefined }),
    };
    expect(await resolveTestServicesWith(probes)).toEqual({ databaseUrl: 'postgres://container', natsUrl: 'nats://env:4222' });
  });

  it('throws one error listing every step tried and how to provide the services', async () => {
    const error = await resolveTestServicesWith({ env: {}, probe: refuse, startContainer: noRuntime }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Error);
    const text = (error as Error).message;
    for (const step of [
      'no PostgreSQL and NATS could be found',
      'PostgreSQL: DATABASE_URL is not set',
      'PostgreSQL: TCP probe of 127.0.0.1:5432 failed (connect ECONNREFUSED)',
      'PostgreSQL: testcontainers could not start postgres:15 (Could not find a working container runtime strategy)',
      'NATS: NATS_URL is not set',
      'NATS: TCP probe of 127.0.0.1:4222 failed',
      'NATS: testcontainers could not start nats:2 -js',
      'set DATABASE_URL=',
      '`nats-server -js` on 127.0.0.1:4222',
    ]) {
      expect(text).toContain(step);
    }
  });
});
