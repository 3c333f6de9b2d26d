/**
 * Helpers for service-kit's own integration specs. libs/testing sits above service-kit in the
 * dependency graph (it imports it), so the few lines needed here are repeated rather than
 * imported, as libs/persistence/test does. Every schema and namespace carries a random suffix, and
 * cleanup() drops what a spec created: other runs share these servers.
 */
import { randomBytes } from 'node:crypto';
import { PassThrough } from 'node:stream';
import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { ALL_STREAMS, createBus, Namespace, type MessageBus } from '@switchyard/messaging';
import { createOrm, resolveDatabaseUrl } from '@switchyard/persistence';
import { startService, type RunningService, type ServiceDefinition } from '../src/bootstrap.js';
import { ConnectionConfigEntity } from '../src/context/db/connection-config.entity.js';
import { Migration0001ConnectionConfigProjection } from './connection-config.migration.js';
import { ContextKitModule } from '../src/context/context-kit.module.js';
import { createLogger } from '../src/logger.js';

export const databaseUrl = resolveDatabaseUrl();
export const natsUrl = process.env['NATS_URL'] ?? 'nats://127.0.0.1:4222';

/** `t` + 8 base36 characters: valid in schema names and bus namespaces. */
export function uniqueSuffix(): string {
  return `t${randomBytes(5).readUIntBE(0, 5).toString(36).padStart(8, '0').slice(0, 8)}`;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Retries `assertion` every 25 ms until it passes; after `timeoutMs` rethrows its last error. */
export async function eventually<T>(assertion: () => T | Promise<T>, timeoutMs = 5_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await assertion();
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await sleep(25);
    }
  }
}

/** A context that keeps only the connection-config projection (what four apps share). */
export const projectionContext: ServiceDefinition = {
  service: 'directory',
  entities: [ConnectionConfigEntity],
  migrations: [Migration0001ConnectionConfigProjection],
  module: ContextKitModule.forContext({ connectionConfig: true }),
};

export interface ContextInstance {
  service: RunningService;
  /** Log lines written so far (level debug: includes every 'connection config received'). */
  logText(): string;
  close(): Promise<void>;
}

/** One replica of `projectionContext` on `schema`, with its own bus connection in `namespace`. */
export async function startInstance(schema: string, namespace: string, options: { migrateOnStart?: boolean; http?: boolean } = {}): Promise<ContextInstance> {
  const lines: string[] = [];
  const sink = new PassThrough();
  sink.on('data', (chunk: Buffer) => lines.push(chunk.toString('utf8')));
  const logger = createLogger({ service: 'directory', level: 'debug', destination: sink });
  const bus: MessageBus = await createBus({ kind: 'jetstream', servers: natsUrl, name: `projection-${schema}`, namespace, logger });
  await bus.ensureStreams(ALL_STREAMS); // the provisioning step (decision 0033)
  const service = await startService(projectionContext, {
    databaseUrl,
    bus,
    environment: 'sandbox',
    schema,
    allServiceSchemas: [schema],
    logger,
    migrateOnStart: options.migrateOnStart ?? true,
    http: options.http ? { port: 0 } : undefined,
  }).catch(async (error: unknown) => {
    await bus.close();
    throw error;
  });
  return {
    service,
    logText: () => lines.join(''),
    close: async () => {
      await service.close();
      await bus.close();
    },
  };
}

/** Drops `schema` and deletes every stream of `namespace` (their consumers go with them). */
export async function cleanup(schema: string, namespace: string): Promise<void> {
  const orm = await createOrm({ clientUrl: databaseUrl, schema: 'public', entities: [], migrations: [], allServiceSchemas: [], poolMax: 2, logger: () => undefined });
  try {
    await orm.em.fork().execute(`drop schema if exists "${schema}" cascade`);
  } finally {
    await orm.close(true);
  }
  const prefix = new Namespace(namespace).stream('X').slice(0, -1);
  const nc = await connect({ servers: natsUrl, name: 'service-kit-test-cleanup' });
  try {
    const jsm = await jetstreamManager(nc);
    const names: string[] = [];
    for await (const name of jsm.streams.names()) if (name.startsWith(prefix)) names.push(name);
    for (const name of names) await jsm.streams.delete(name);
  } finally {
    await nc.close();
  }
}
