/**
 * `npm start` (the built launcher) on the machine's PostgreSQL and NATS, for suites that use the
 * sandbox rather than test the launcher itself (launcher-scenario.ts does that): a database of its
 * own and a unique NATS namespace, both removed by `stop()`, with its data directory.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { assertBuilt, createTestDatabase, deleteNamespaceStreams, freePort, freePortRange, resolveTestServices, spawnNode, uniqueSuffix, workspaceProjects, type NodeProcess } from '@switchyard/testing';

/** The sandbox credentials file the launcher writes (`<data dir>/sandbox-credentials.json`). */
export interface SandboxCredentials {
  baseUrl: string;
  applicationSecret: string;
  consumerKey: string;
  connections: { id: string; provider: string; connectionToken: string }[];
}

export interface Sandbox {
  proc: NodeProcess;
  dataDir: string;
  credentialsFile: string;
  credentials: SandboxCredentials;
  /** SIGINT (SIGKILL after 15 s), then the database, the namespace's streams and the data directory go. */
  stop(): Promise<void>;
}

/** Starts the sandbox with `env` on top of its own database, namespace, ports and data directory; resolves once the try-it block is printed. */
export async function startSandbox(name: string, env: Record<string, string> = {}, readyTimeoutMs = 40_000): Promise<Sandbox> {
  const entry = assertBuilt('launcher/dist/start.js', workspaceProjects().filter((p) => p !== 'e2e' && p !== 'libs/testing'));
  const { databaseUrl, natsUrl } = await resolveTestServices();
  const database = await createTestDatabase(databaseUrl, `sy_${name}`);
  // NATS_NAMESPACE accepts lower-case letters and digits only (docs/configuration.md).
  const namespace = `${name}${uniqueSuffix()}`;
  const dataDir = mkdtempSync(path.join(tmpdir(), `sy-${name}-`));
  const proc = spawnNode(entry, {
    env: {
      DATABASE_URL: database.url,
      NATS_URL: natsUrl,
      NATS_NAMESPACE: namespace,
      PORT: String(await freePort()),
      METRICS_PORT: String(await freePortRange(6)),
      SAMSARA_SIM_PORT: '0',
      MOTIVE_SIM_PORT: '0',
      GEOTAB_SIM_PORT: '0',
      SWITCHYARD_DATA_DIR: dataDir,
      ...env,
    },
  });
  const stop = async () => {
    try {
      proc.child.kill('SIGINT');
      await proc.waitForExit(15_000).catch(() => proc.kill());
      await database.drop();
      await deleteNamespaceStreams(natsUrl, namespace);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  };
  try {
    await proc.waitForOutput(/┌ Switchyard sandbox is up[\s\S]*?\n└/, readyTimeoutMs);
  } catch (error) {
    await stop();
    throw error;
  }
  const credentialsFile = path.join(dataDir, 'sandbox-credentials.json');
  return { proc, dataDir, credentialsFile, credentials: JSON.parse(readFileSync(credentialsFile, 'utf8')) as SandboxCredentials, stop };
}
