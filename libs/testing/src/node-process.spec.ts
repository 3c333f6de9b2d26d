import { describe, expect, it } from '@jest/globals';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { assertBuilt, spawnNode, workspaceProjects } from './node-process.js';

describe('spawnNode', () => {
  it('runs a script on the pinned Node with only the given environment, and reports output and exit code', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'sy-node-process-'));
    try {
      const script = path.join(dir, 'child.mjs');
      writeFileSync(script, "console.log(`node ${process.versions.node.split('.')[0]} ${process.env.GREETING} ${process.env.DATABASE_URL ?? 'no-db'}`);\nconsole.error('to stderr');\nprocess.exit(3);\n");
      const child = spawnNode(script, { env: { GREETING: 'hello' } });
      expect((await child.waitForOutput(/node (\d+) hello no-db/))[1]).toBe('24');
      expect(await child.waitForExit(5_000)).toEqual({ code: 3, signal: null });
      expect(child.stderr()).toBe('to stderr\n');
      await expect(child.waitForOutput(/never printed/, 1_000)).rejects.toThrow('process exited before printing');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('reports the exit only once everything written to its pipes has been read', async () => {
    // The crash test once saw a SIGKILL without the crash point's line written just before it: Node's
    // 'exit' can come before the last chunks of the pipes are read. Deterministic form of that race:
    // the process dies at once while a child it started, sharing its stderr, writes 300 ms later.
    // Mutation: resolving on 'exit' instead of 'close' returns without 'last words'.
    const dir = mkdtempSync(path.join(tmpdir(), 'sy-node-process-'));
    try {
      const script = path.join(dir, 'dies.mjs');
      const late = "setTimeout(() => process.stderr.write('last words\\n'), 300)";
      writeFileSync(script, `import { spawn } from 'node:child_process';\nspawn(process.execPath, ['-e', ${JSON.stringify(late)}], { stdio: ['ignore', 'ignore', 'inherit'] });\nprocess.kill(process.pid, 'SIGKILL');\n`);
      const child = spawnNode(script);
      expect(await child.waitForExit(10_000)).toEqual({ code: null, signal: 'SIGKILL' });
      expect(child.stderr()).toBe('last words\n');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('assertBuilt', () => {
  it('fails with the advice to build when the entry point is missing', () => {
    expect(() => assertBuilt('apps/nothing/dist/main.js', [])).toThrow('apps/nothing/dist/main.js is missing: run `npm run build` first');
  });

  it('lists the workspace projects', () => {
    expect(workspaceProjects()).toEqual(expect.arrayContaining(['apps/gateway', 'libs/testing', 'launcher', 'e2e']));
  });
});
