/**
 * Where the benchmark's PostgreSQL and NATS are, and names that keep a run apart from the tests
 * and other runs sharing them. Same conventions as libs/testing/src/isolation.ts and
 * nats-cleanup.ts (schema `<service schema>_t<6 base36>`, namespace `bench-t<6 base36>`, streams
 * `BENCH_T…_*`), re-implemented here because the @switchyard/testing barrel loads @jest/globals and
 * cannot be imported outside Jest. Invariants: services must be on 127.0.0.1 (benchmark traffic
 * never leaves the machine); only suffixed schemas and the namespace's own streams are dropped.
 */
import { randomBytes } from 'node:crypto';
import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { assertSchemaName, createOrm, SERVICE_SCHEMAS } from '@switchyard/persistence';

const LOCAL_HOSTS = new Set(['127.0.0.1', 'localhost']);

function local(name, value) {
  const host = new URL(value).hostname;
  if (!LOCAL_HOSTS.has(host)) throw new Error(`${name} must point at 127.0.0.1 for benchmarks, got host "${host}"`);
  return value;
}

/** DATABASE_URL / NATS_URL when set (must be local), else the machine's default local servers. */
export function benchServices(env = process.env) {
  return {
    databaseUrl: local('DATABASE_URL', env.DATABASE_URL?.trim() || 'postgres://postgres@127.0.0.1:5432/postgres'),
    natsUrl: local('NATS_URL', env.NATS_URL?.trim() || 'nats://127.0.0.1:4222'),
  };
}

/** `t` + 6 base36 characters, as in libs/testing. */
export function uniqueSuffix() {
  const n = randomBytes(5).readUIntBE(0, 5) % 36 ** 6;
  return `t${n.toString(36).padStart(6, '0')}`;
}

/** Service name → isolated schema name, one suffix for the whole set. */
export function isolatedSchemas(services, suffix = uniqueSuffix()) {
  return Object.fromEntries(services.map((s) => [s, assertSchemaName(`${SERVICE_SCHEMAS[s]}_${suffix}`)]));
}

export const uniqueNamespace = (prefix = 'bench') => `${prefix}-${uniqueSuffix()}`;

/** `drop schema if exists … cascade` for each name; refuses any name without an isolation suffix. */
export async function dropSchemas(databaseUrl, names) {
  for (const name of names) {
    if (!/_t[0-9a-z]{6}$/.test(assertSchemaName(name))) throw new Error(`refusing to drop non-isolated schema "${name}"`);
  }
  const orm = await createOrm({ clientUrl: databaseUrl, schema: 'public', entities: [], migrations: [], allServiceSchemas: [], poolMax: 2, logger: () => undefined });
  try {
    for (const name of names) await orm.em.fork().execute(`drop schema if exists "${name}" cascade`);
  } finally {
    await orm.close(true);
  }
}

/** Deletes the JetStream streams named `<NAMESPACE>_…`. */
export async function deleteNamespaceStreams(natsUrl, namespace) {
  if (!namespace) throw new Error('refusing to delete streams of the empty (production) namespace');
  const prefix = `${namespace.toUpperCase().replaceAll('-', '_')}_`;
  const nc = await connect({ servers: natsUrl, name: 'bench-cleanup' });
  try {
    const jsm = await jetstreamManager(nc);
    const names = [];
    for await (const name of jsm.streams.names()) if (name.startsWith(prefix)) names.push(name);
    for (const name of names) await jsm.streams.delete(name);
  } finally {
    await nc.close();
  }
}
