import { describe, expect, it } from '@jest/globals';
import { ConfigError, parseMainEnv } from '@switchyard/service-kit';
import { GATEWAY_MAIN_ENV } from './config.js';

const SECRETS = { SWITCHYARD_MASTER_KEY: 'bWFzdGVyLWtleS1mb3ItdGVzdHMtb25seS0zMmJ5dGVz', CURSOR_SECRET: 'a-cursor-secret-of-32-characters' };

/** The variable names of the ConfigError main.ts would print, sorted; [] when the environment is good. */
function badVariables(env: NodeJS.ProcessEnv): string[] {
  try {
    parseMainEnv(GATEWAY_MAIN_ENV, env);
    return [];
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    return error.problems.map((p) => p.split(':')[0] ?? '').sort();
  }
}

describe('gateway main environment (runMain with gatewayEnvSchema)', () => {
  it('names a bad shared variable and bad gateway variables in one message', () => {
    expect(badVariables({ ...SECRETS, LOG_LEVEL: 'loud', RPC_TIMEOUT_MS: '1', BODY_LIMIT_BYTES: 'big' })).toEqual(['BODY_LIMIT_BYTES', 'LOG_LEVEL', 'RPC_TIMEOUT_MS']);
  });

  it('requires both secrets in production, named together with the other bad variables', () => {
    expect(badVariables({ NATS_NAMESPACE: 'Staging', PORT: 'abc' })).toEqual(['CURSOR_SECRET', 'NATS_NAMESPACE', 'PORT', 'SWITCHYARD_MASTER_KEY']);
    expect(badVariables({ SWITCHYARD_MASTER_KEY: SECRETS.SWITCHYARD_MASTER_KEY })).toEqual(['CURSOR_SECRET']);
    expect(badVariables({ ...SECRETS, CURSOR_SECRET: 'short' })).toEqual(['CURSOR_SECRET']);
    // The message names the variables, never their values.
    const error = (() => {
      try {
        parseMainEnv(GATEWAY_MAIN_ENV, { ...SECRETS, CURSOR_SECRET: 'short-secret' });
      } catch (e) {
        return e as Error;
      }
    })();
    expect(error?.message).toContain('CURSOR_SECRET');
    expect(error?.message).not.toContain('short-secret');
  });

  it('accepts production with both secrets, and the sandbox without them', () => {
    expect(badVariables(SECRETS)).toEqual([]);
    expect(badVariables({ SWITCHYARD_ENV: 'sandbox' })).toEqual([]);
    expect(parseMainEnv(GATEWAY_MAIN_ENV, { ...SECRETS, RPC_TIMEOUT_MS: '250' })).toMatchObject({ env: { RPC_TIMEOUT_MS: 250, CURSOR_SECRET: SECRETS.CURSOR_SECRET }, http: { port: 3000, host: '127.0.0.1' }, metrics: { port: 9464 } });
  });
});
