/** Reading a child's scheduler state: a SIGSTOPped process is seen stopped, a resumed one is not, a gone one has no state. */
import { describe, expect, it } from '@jest/globals';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { spawnNode } from './node-process.js';
import { pollUntil } from './poll.js';
import { processState, waitUntilStopped } from './service-process.js';

describe('processState / waitUntilStopped', () => {
  it('sees a process stop itself, resume, and go', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'sy-service-process-'));
    try {
      const script = path.join(dir, 'child.mjs');
      writeFileSync(script, "console.log('up');\nsetInterval(() => undefined, 1_000);\nsetTimeout(() => process.kill(process.pid, 'SIGSTOP'), 100);\n");
      const child = spawnNode(script);
      await child.waitForOutput(/up/);
      const pid = child.child.pid!;
      await waitUntilStopped(child, 10_000);
      expect(processState(pid)).toBe('T');
      child.child.kill('SIGCONT');
      await pollUntil(() => processState(pid) !== 'T', { timeoutMs: 10_000, description: 'resumed' });
      await child.kill();
      expect(processState(pid)).toBeUndefined();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
