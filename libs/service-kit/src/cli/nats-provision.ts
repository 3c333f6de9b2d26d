/**
 * The provisioning step (decision 0033): `npm run nats:provision`, the image's `nats-provision`
 * command and the Kubernetes Job nats-provision. Creates every JetStream stream and durable
 * consumer of deploy/nats/streams/*.json, or sets an existing one to exactly its declaration
 * (libs/messaging provisioning.ts). Runs as its own NATS user (`provisioner` in
 * deploy/nats/nats-server.conf), the only one allowed to create or update a stream; services only
 * bind and refuse to start while a stream differs. Idempotent: run it before every release.
 *
 * Reads NATS_URL, the NATS_* credentials and NATS_NAMESPACE like every app, and the deployment's
 * values the files leave at their defaults: NATS_STREAM_MAX_BYTES_<STREAM> (decision 0026; give
 * the services the same values), INGEST_ACK_WAIT_MS (the ingest durables' ack wait) and
 * NATS_STREAM_REPLICAS[_<STREAM>] (JetStream cluster, decision 0034; read back from the server). Exit 0 when every stream and durable is provisioned,
 * 1 otherwise (reason on stderr).
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { provisionJetStream, STREAMS, type StreamFile, type StreamName } from '@switchyard/messaging';
import { z } from 'zod';
import { baseEnvSchema, checkNatsEnv, loadConfig, natsAuth, streamReplicasFromEnv } from '../config.js';
import { ingestEnvSchema } from '../ingest/ingest-settings.js';
import { createLogger } from '../logger.js';

/** deploy/nats/streams of the workspace (and of every image: deploy/docker/Dockerfile copies it). */
export const DEFAULT_STREAM_DIR = path.resolve(import.meta.dirname, '../../../../deploy/nats/streams');

const USAGE = 'usage: npm run nats:provision [-- --dir <folder of stream files>]   (default deploy/nats/streams)';

// The shared variables (NATS_*, NATS_STREAM_MAX_BYTES_*, LOG_LEVEL; DATABASE_URL is not used) and INGEST_ACK_WAIT_MS.
const envSchema = baseEnvSchema
  .extend(ingestEnvSchema.shape)
  .superRefine(checkNatsEnv, { when: () => true });

type ProvisionEnv = z.output<typeof envSchema>;

const streamFileSchema = z.object({
  stream: z.looseObject({
    name: z.string().regex(/^[A-Za-z0-9_-]+$/),
    subjects: z.array(z.string().min(1)).min(1),
    max_bytes: z.number().int(),
    num_replicas: z.number().int().min(1).max(5),
    // The server knows num_replicas only: a stream written with `replicas: 3` would silently get one copy.
    replicas: z.undefined({ error: 'not a JetStream field (the server ignores it and keeps one copy): write num_replicas' }).optional(),
  }),
  consumers: z.array(z.looseObject({ durable_name: z.string().regex(/^[A-Za-z0-9_-]+$/), filter_subject: z.string().min(1), ack_wait: z.number().int().positive() })),
});

/** The stream files of `dir`, each checked for the fields provisioning relies on. */
export function readStreamFiles(dir: string): StreamFile[] {
  const names = readdirSync(dir).filter((f) => f.endsWith('.json')).sort();
  if (names.length === 0) throw new Error(`no stream files (*.json) in ${dir}`);
  return names.map((name) => {
    const parsed = streamFileSchema.safeParse(JSON.parse(readFileSync(path.join(dir, name), 'utf8')));
    if (!parsed.success) throw new Error(`${path.join(dir, name)}: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
    return parsed.data as unknown as StreamFile;
  });
}

/** The deployment's values in place of the files' defaults (byte limits, ingest ack wait, replicas). */
export function withDeploymentValues(files: readonly StreamFile[], env: ProvisionEnv): StreamFile[] {
  return files.map(({ stream, consumers }) => {
    const maxBytes = env[`NATS_STREAM_MAX_BYTES_${stream.name as StreamName}`];
    const replicas = streamReplicasFromEnv(env)[stream.name as StreamName];
    return {
      stream: { ...stream, ...(maxBytes === undefined ? {} : { max_bytes: maxBytes }), ...(replicas === undefined ? {} : { num_replicas: replicas }) },
      consumers: consumers.map((c) => (stream.name === STREAMS.INGEST.name ? { ...c, ack_wait: env.INGEST_ACK_WAIT_MS * 1_000_000 } : c)),
    };
  });
}

export async function runNatsProvision(argv: readonly string[], env: NodeJS.ProcessEnv, out: (line: string) => void): Promise<void> {
  const { values } = parseArgs({ args: [...argv], options: { dir: { type: 'string' }, help: { type: 'boolean' } }, strict: true });
  if (values.help) return out(USAGE);
  const parsed = loadConfig(envSchema, env);
  const files = withDeploymentValues(readStreamFiles(path.resolve(values.dir ?? DEFAULT_STREAM_DIR)), parsed);
  const logger = createLogger({ service: 'nats-provision', level: parsed.LOG_LEVEL });
  const done = await provisionJetStream({ servers: parsed.NATS_URL, auth: natsAuth(parsed), namespace: parsed.NATS_NAMESPACE, logger, waitOnFirstConnect: true }, files);
  out(`provisioned ${done.streams} streams and ${done.consumers} durable consumers${parsed.NATS_NAMESPACE ? ` in namespace ${parsed.NATS_NAMESPACE}` : ''}`);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  try {
    await runNatsProvision(process.argv.slice(2), process.env, (line) => process.stdout.write(`${line}\n`));
  } catch (error) {
    process.stderr.write(`nats-provision: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  }
}
