// Applies an app's pending migrations to its own schema, as a release step separate from start-up
// (set MIGRATE_ON_START=false on the app when you use this). Safe to run while replicas start: it
// takes the same per-schema advisory lock as the apps' own migrateUp().
//
// Usage (after `npm run build`):
//   npm run migrate -- <app>|all [--schema <name>] [--pending]
//     <app>      gateway | sync-orchestrator | directory | telemetry-ingest | fault-feed | enrichment
//     --schema   override the schema (e.g. an isolated test schema); only with a single app
//     --pending  list what would be applied, apply nothing
//   DATABASE_URL selects the server (default postgres://postgres@127.0.0.1:5432/postgres).
//
// Contract every app keeps (docs/decisions/0004-persistence-per-schema.md):
//   apps/<app>/src/index.ts exports exactly one service definition (libs/service-kit ServiceDefinition)
//     export const gatewayService = { service: 'gateway', entities, migrations, module };
//   - its schema is SERVICE_SCHEMAS[<app>] in libs/persistence (or DB_SCHEMA / --schema to override);
//   - entities: the app's defineEntity() schemas; migrations: its SchemaMigration classes in order;
//   - importing index.ts has no side effects (no Nest bootstrap, no connections) — main.ts starts.
import { access } from 'node:fs/promises';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');

function usage(message) {
  if (message) console.error(`migrate: ${message}`);
  console.error('usage: npm run migrate -- <app>|all [--schema <name>] [--pending]');
  process.exit(2);
}

async function importBuilt(pkg, dir) {
  const entry = path.join(root, dir, 'dist', 'index.js');
  try {
    await access(entry);
  } catch {
    throw new Error(`${pkg} is not built (${path.relative(root, entry)} missing): run \`npm run build\` first`);
  }
  return import(pkg);
}

const isDefinition = (value) => value !== null && typeof value === 'object' && Array.isArray(value.entities) && Array.isArray(value.migrations);

/** The app's one exported service definition for `app`. */
function findPersistence(app, mod) {
  const candidates = Object.values(mod).filter((value) => isDefinition(value) && value.service === app);
  if (candidates.length === 1) return candidates[0];
  throw new Error(`@switchyard/${app} must export one service definition with service: '${app}', entities and migrations (found ${candidates.length})`);
}

const args = process.argv.slice(2);
let target;
let schemaOverride;
let pendingOnly = false;
for (let i = 0; i < args.length; i++) {
  if (args[i] === '--schema') schemaOverride = args[++i] ?? usage('--schema needs a name');
  else if (args[i] === '--pending') pendingOnly = true;
  else if (args[i].startsWith('-')) usage(`unknown option ${args[i]}`);
  else if (target) usage('give one app (or all)');
  else target = args[i];
}
if (!target) usage('no app given');

const persistenceLib = await importBuilt('@switchyard/persistence', 'libs/persistence');
const { SERVICE_SCHEMAS, createOrm, migrateUp, pendingMigrations, resolveDatabaseUrl, maskUrl } = persistenceLib;
const apps = target === 'all' ? Object.keys(SERVICE_SCHEMAS) : [target];
if (!apps.every((app) => app in SERVICE_SCHEMAS)) usage(`unknown app "${target}"; one of: ${Object.keys(SERVICE_SCHEMAS).join(', ')}, all`);
if (schemaOverride && apps.length > 1) usage('--schema works with a single app only');

const clientUrl = resolveDatabaseUrl(process.env);
console.log(`migrate: database ${maskUrl(clientUrl)}`);
let failed = false;
for (const app of apps) {
  let orm;
  try {
    const mod = await importBuilt(`@switchyard/${app}`, path.join('apps', app));
    const persistence = findPersistence(app, mod);
    const schema = schemaOverride ?? (apps.length === 1 ? process.env.DB_SCHEMA : undefined) ?? SERVICE_SCHEMAS[app];
    orm = await createOrm({ clientUrl, schema, entities: persistence.entities, migrations: persistence.migrations });
    if (pendingOnly) {
      const pending = await pendingMigrations(orm);
      console.log(`migrate: ${app} ("${schema}") pending: ${pending.length ? pending.join(', ') : 'none'}`);
    } else {
      await migrateUp(orm, { log: (line) => console.log(`migrate: ${app}: ${line}`) });
    }
  } catch (error) {
    failed = true;
    console.error(`migrate: ${app} failed: ${error instanceof Error ? error.message : String(error)}`);
  } finally {
    await orm?.close(true);
  }
}
process.exit(failed ? 1 : 0);
