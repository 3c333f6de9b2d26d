/**
 * The launcher's record of its database and bus, as the CLIs read it: it fills only what the
 * environment leaves unset, and it turns "the embedded PostgreSQL is not running" and "the bus is
 * in-process" into a sentence that says what to do.
 */
import { afterAll, describe, expect, it } from '@jest/globals';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { embeddedDatabaseDown, inProcessBus, localStackPath, withLocalStack, writeLocalStack, type LocalStack } from './local-stack.js';

const dirs: string[] = [];
function dataDirWith(stack: Partial<LocalStack>): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'sy-stack-'));
  dirs.push(dir);
  writeLocalStack(dir, { databaseUrl: 'postgres://postgres@127.0.0.1:5432/switchyard', embeddedDatabase: false, natsUrl: 'nats://127.0.0.1:4222', natsNamespace: 'demo', pid: 1, startedAt: '2026-11-28T00:00:00Z', ...stack });
  return dir;
}

afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

describe('withLocalStack', () => {
  it('fills DATABASE_URL, NATS_URL and NATS_NAMESPACE from the record when they are unset', () => {
    const dir = dataDirWith({});
    expect(statSync(localStackPath(dir)).mode & 0o777).toBe(0o600);
    const { env } = withLocalStack({ SWITCHYARD_DATA_DIR: dir, DATABASE_URL: ' ' });
    expect(env).toMatchObject({ DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/switchyard', NATS_URL: 'nats://127.0.0.1:4222', NATS_NAMESPACE: 'demo' });
  });

  it('never overrides what the environment sets', () => {
    const dir = dataDirWith({});
    const env = { SWITCHYARD_DATA_DIR: dir, DATABASE_URL: 'postgres://x@db/y', NATS_URL: 'nats://bus:4222' };
    expect(withLocalStack(env)).toEqual({ env, file: localStackPath(dir) });
  });

  it('leaves the environment alone without a record', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'sy-stack-'));
    dirs.push(dir);
    expect(withLocalStack({ SWITCHYARD_DATA_DIR: dir }).env).toEqual({ SWITCHYARD_DATA_DIR: dir });
  });
});

describe('what a CLI cannot reach', () => {
  // Port 1: nothing listens there, so the probe is refused at once.
  const embedded = { databaseUrl: 'postgres://postgres@127.0.0.1:1/switchyard', embeddedDatabase: true, natsUrl: null };

  it('an embedded PostgreSQL that is not running is named with what to do', async () => {
    const local = withLocalStack({ SWITCHYARD_DATA_DIR: dataDirWith(embedded) });
    expect(await embeddedDatabaseDown(local)).toMatch(/^the sandbox database is the embedded PostgreSQL that npm start runs .*Start npm start, then run this again/);
    // An explicit DATABASE_URL is the operator's own choice: no opinion.
    expect(await embeddedDatabaseDown(withLocalStack({ SWITCHYARD_DATA_DIR: dataDirWith(embedded), DATABASE_URL: 'postgres://x@db/y' }))).toBeUndefined();
  });

  it('the in-process bus is named for a JetStream command, unless NATS_URL is set', () => {
    expect(inProcessBus(withLocalStack({ SWITCHYARD_DATA_DIR: dataDirWith(embedded) }))).toMatch(/^npm start runs the in-process bus .*Run npm start with NATS JetStream/);
    expect(inProcessBus(withLocalStack({ SWITCHYARD_DATA_DIR: dataDirWith(embedded), NATS_URL: 'nats://bus:4222' }))).toBeUndefined();
    expect(inProcessBus(withLocalStack({ SWITCHYARD_DATA_DIR: dataDirWith({}) }))).toBeUndefined();
  });
});
