import { describe, expect, it } from '@jest/globals';
import { ConfigError, parseMainEnv } from '@switchyard/service-kit';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { GATEWAY_MAIN_ENV } from './config.js';
import { loadKeyMaterial } from './services/key-material.js';

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

  it('refuses a CURSOR_SECRET of 16 to 31 bytes at start, counted in bytes, which the cursor codec would reject on every request', () => {
    expect(badVariables({ ...SECRETS, CURSOR_SECRET: 'sixteen-bytes-!!' })).toEqual(['CURSOR_SECRET']);
    expect(badVariables({ ...SECRETS, CURSOR_SECRET: 'x'.repeat(31) })).toEqual(['CURSOR_SECRET']);
    expect(badVariables({ ...SECRETS, CURSOR_SECRET: 'x'.repeat(32) })).toEqual([]);
    // 16 characters but 32 UTF-8 bytes: the codec's key is the UTF-8 text.
    expect(badVariables({ ...SECRETS, CURSOR_SECRET: 'é'.repeat(16) })).toEqual([]);
    expect(() => parseMainEnv(GATEWAY_MAIN_ENV, { ...SECRETS, CURSOR_SECRET: 'x'.repeat(20) })).toThrow(/CURSOR_SECRET: at least 32 bytes/);
  });

  it('accepts the cursor secret the sandbox generates', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'gateway-keys-'));
    try {
      const keys = loadKeyMaterial({ SWITCHYARD_DATA_DIR: dir }, { createIfMissing: true });
      expect(badVariables({ SWITCHYARD_MASTER_KEY: keys.masterKey, CURSOR_SECRET: keys.cursorSecret })).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
