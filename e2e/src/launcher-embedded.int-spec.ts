/**
 * `npm start` with SWITCHYARD_EMBEDDED=true: an embedded PostgreSQL 15 in `<data dir>/pg` on a free
 * port and the in-process bus, whatever runs on this machine; the restart proves the data survives
 * in the data directory. If the launcher dies without stopping its PostgreSQL, cleanup stops the
 * orphan through its postmaster.pid.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { freePort } from '@switchyard/testing';
import { describeLauncherScenario } from './launcher-scenario.js';

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

describeLauncherScenario('npm start with SWITCHYARD_EMBEDDED=true', async () => {
  const pgPort = await freePort();
  let pgDir = '';
  return {
    // A DATABASE_URL that cannot work proves the switch really ignores it.
    env: { SWITCHYARD_EMBEDDED: 'true', EMBEDDED_PG_PORT: String(pgPort), DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none' },
    usingLine: (dataDir) => {
      pgDir = path.join(dataDir, 'pg');
      return new RegExp(
        `^using database: embedded PostgreSQL 15 on 127\\.0\\.0\\.1:${pgPort} \\(SWITCHYARD_EMBEDDED=true\\), data in ${escape(pgDir)}; bus: in-process bus \\(SWITCHYARD_EMBEDDED=true;`,
      );
    },
    async cleanup() {
      const pidFile = path.join(pgDir, 'postmaster.pid');
      if (pgDir && existsSync(pidFile)) {
        const pid = Number(readFileSync(pidFile, 'utf8').split('\n')[0]);
        try {
          // SIGQUIT: PostgreSQL's immediate shutdown; the data dir is deleted next anyway.
          if (pid > 0) process.kill(pid, 'SIGQUIT');
        } catch {
          // Already gone (the launcher stopped it, or its exit hook did).
        }
      }
    },
  };
});
