/**
 * Operator CLI: `npm run operator -- <command> [options]`. Issues and revokes credentials, grants
 * permissions, creates and configures connections. Prints JSON; a secret is printed once, at issue,
 * and never stored in clear. Talks to the gateway schema directly (`DB_SCHEMA`, default `gateway`,
 * migrating it first) and leaves event publication to the gateway's outbox relay. Without
 * DATABASE_URL it uses the database `npm start` recorded in `<SWITCHYARD_DATA_DIR>/local-stack.json`
 * (service-kit's local-stack), else the local default.
 * Invariant: every argument is checked before the database is opened, and each command is one
 * admin call (configuration changes one transaction), so a bad value is a clear error and never a
 * partial write. Exit code 0 on success, 1 on any error, with the reason on stderr.
 * A command that changed a credential, grant or connection (a `committingChange`) returns only once
 * the change holds in every gateway process: their principal caches are cleared by the change's
 * notification within milliseconds, and hold nothing read before it longer than
 * PRINCIPAL_CACHE_TTL_MS (decision 0031) — so the CLI waits that bound after the commit, and a key
 * it revoked is refused by the next request, wherever it lands.
 */
import { parseArgs } from 'node:util';
import { CONNECTION_STATUSES, ENVIRONMENTS, isUuid, PROVIDERS, RECORD_STATUSES, SELECTED_SIGNALS, type Environment, type Provider } from '@switchyard/domain';
import { createOrm, migrateUp, resolveDatabaseUrl } from '@switchyard/persistence';
import { embeddedDatabaseDown, withLocalStack } from '@switchyard/service-kit';
import { PRINCIPAL_CACHE_TTL_MS } from '../auth/principal-cache.js';
import { CONSUMER_PERMISSIONS, SYNC_OPERATIONS, type ConsumerPermission, type SyncOperation } from '../auth/principal.js';
import { gatewayEntities } from '../db/entities/index.js';
import { gatewayMigrations } from '../db/migrations/index.js';
import { ConnectionsAdmin, type ConnectionConfigPatch } from '../services/connections-admin.service.js';
import { onChangesCommittedThrough } from '../services/credential-change-hooks.js';
import { AdminError, CredentialsAdmin } from '../services/credentials-admin.service.js';
import { loadKeyMaterial } from '../services/key-material.js';
import { SecretBox } from '../services/secret-box.js';
import { gatewayEnvSchema } from '../config.js';
import { WebhookEndpointsService } from '../services/webhook-endpoints.service.js';
import { WEBHOOK_OPTIONS, WEBHOOK_USAGE, webhookPlan } from './webhook-commands.js';

const USAGE = `usage: npm run operator -- <command> [options]
  app:create --name <n> --env sandbox|production        issue an application secret (sk_…)
  key:create --name <n>                                 issue a consumer key (pt_…)
  operator:create --name <n>                            issue an operator credential (op_…): signs in to the console (/console) only
  token:issue --app <id> --connection <id>              issue a Connection-Token (ct_…)
  grant:consumer --key <id> --connection <id> --permissions read,manage,history   (--permissions '' revokes)
  grant:app --app <id> --connection <id> --operations sync.create,sync.read,sync.retry,sync.cancel [--history]   (--operations '' revokes)
  revoke application|consumer-key|connection-token|operator <id or display prefix>
  connection:create --customer <id> --provider samsara|motive|geotab --env sandbox|production [--credentials '<json>']
  connection:configure --connection <id> [--status active|paused|disconnected] [--unified-collection true|false]
      [--purposes vehicles,groupMemberships,trips] [--approved-vehicles a,b] [--include a,b] [--exclude a,b]
      [--include-statuses active,inactive] [--opt-ins groupInventory,vehicleMetadata,extendedTelemetry]
      [--approved-groups a,b] [--signals odometer,faults,engineHours,location] [--reason <why the status changes>]
  connection:show --connection <id>
  connection:pause --connection <id> [--reason <text>]  stop collection (needed before a connect session; docs/decisions/0022);
      the reason is shown beside the paused connection in the console
  connection:resume --connection <id> [--reason <text>] collect again (refused while an enrollment waits for connection:activate)
  connection:activate --connection <id> --signals odometer,faults,engineHours,location
      install the reviewed signal-limited activation policy after a completed connect session (a subset
      of the signals the customer approved) and start collecting
  connection:geotab-binding --connection <id> --database <name> --server <base url>
      approve the Geotab database and server a connect session may enroll (the gateway calls only its
      configured GEOTAB_BASE_URL or an https://….geotab.com server)
  list                                                  credentials and grants, display prefixes only
  grants:republish                                      re-announce every application's grants to the orchestrator
${WEBHOOK_USAGE}`;

const OPTIONS = {
  name: { type: 'string' },
  env: { type: 'string' },
  app: { type: 'string' },
  key: { type: 'string' },
  connection: { type: 'string' },
  permissions: { type: 'string' },
  operations: { type: 'string' },
  history: { type: 'boolean' },
  customer: { type: 'string' },
  provider: { type: 'string' },
  credentials: { type: 'string' },
  status: { type: 'string' },
  'unified-collection': { type: 'string' },
  purposes: { type: 'string' },
  'approved-vehicles': { type: 'string' },
  include: { type: 'string' },
  exclude: { type: 'string' },
  'include-statuses': { type: 'string' },
  'opt-ins': { type: 'string' },
  'approved-groups': { type: 'string' },
  signals: { type: 'string' },
  database: { type: 'string' },
  server: { type: 'string' },
  reason: { type: 'string' },
  ...WEBHOOK_OPTIONS,
} as const;

type Values = Partial<Record<keyof typeof OPTIONS, string | boolean>>;

interface Admins {
  creds: CredentialsAdmin;
  connections(): ConnectionsAdmin;
  webhooks(): WebhookEndpointsService;
}
/** A command whose arguments have been checked, waiting for the database. */
type Plan = (admins: Admins) => Promise<unknown>;

const list = (v: string | undefined): string[] => (v === undefined || v === '' ? [] : v.split(',').map((s) => s.trim()).filter(Boolean));

function fail(message: string): never {
  throw new AdminError(message);
}

function flags<K extends string>(names: readonly K[], selected: string[], option: string): Record<K, boolean> {
  for (const s of selected) if (!(names as readonly string[]).includes(s)) fail(`--${option}: unknown value "${s}" (expected ${names.join(', ')})`);
  return Object.fromEntries(names.map((n) => [n, selected.includes(n)])) as Record<K, boolean>;
}

function oneOf<T extends string>(names: readonly T[], value: string, option: string): T {
  if (!(names as readonly string[]).includes(value)) fail(`--${option}: unknown value "${value}" (expected ${names.join(', ')})`);
  return value as T;
}

function subset<T extends string>(names: readonly T[], value: string, option: string): T[] {
  return list(value).map((v) => oneOf(names, v, option));
}

function checked(values: Values) {
  const str = (name: keyof typeof OPTIONS) => values[name] as string | undefined;
  return {
    str,
    need(name: keyof typeof OPTIONS): string {
      const v = str(name);
      if (!v) fail(`--${name} is required\n${USAGE}`);
      return v;
    },
    /** Must be given, but may be empty (an explicit empty list revokes). */
    given(name: keyof typeof OPTIONS): string {
      const v = str(name);
      if (v === undefined) fail(`--${name} is required (pass --${name} '' to revoke)\n${USAGE}`);
      return v;
    },
    id(name: keyof typeof OPTIONS): string {
      const v = str(name);
      if (!v) fail(`--${name} is required\n${USAGE}`);
      if (!isUuid(v)) fail(`--${name} must be an id (uuid), got "${v}"`);
      return v;
    },
  };
}

function providerCredentials(text: string | undefined): Record<string, string> | undefined {
  if (text === undefined) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    fail('--credentials must be a JSON object of strings, e.g. \'{"apiToken":"…"}\'');
  }
  const ok = typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) && Object.values(parsed).every((v) => typeof v === 'string' && v.length > 0);
  if (!ok || Object.keys(parsed as object).length === 0) fail('--credentials must be a non-empty JSON object whose values are non-empty strings');
  return parsed as Record<string, string>;
}

/** At most 500 characters of one line: it is shown to operators as it was typed. */
function statusReason(text: string | undefined): string | undefined {
  if (text === undefined) return undefined;
  const trimmed = text.trim();
  if (trimmed.length === 0 || trimmed.length > 500 || /\p{Cc}/u.test(trimmed)) fail('--reason must be 1 to 500 characters on one line');
  return trimmed;
}

function patchFrom(a: ReturnType<typeof checked>): ConnectionConfigPatch {
  const s = a.str;
  const patch: { -readonly [K in keyof ConnectionConfigPatch]: ConnectionConfigPatch[K] } = {};
  const status = s('status');
  if (status !== undefined) patch.status = oneOf(CONNECTION_STATUSES, status, 'status');
  const unified = s('unified-collection');
  if (unified !== undefined) patch.unifiedCollection = oneOf(['true', 'false'], unified, 'unified-collection') === 'true';
  if (s('purposes') !== undefined) patch.purposes = flags(['vehicles', 'groupMemberships', 'trips'] as const, list(s('purposes')), 'purposes');
  if (s('opt-ins') !== undefined) patch.optIns = flags(['groupInventory', 'vehicleMetadata', 'extendedTelemetry'] as const, list(s('opt-ins')), 'opt-ins');
  if (s('approved-vehicles') !== undefined) patch.approvedVehicleIds = list(s('approved-vehicles'));
  if (s('include') !== undefined) patch.includeVehicleIds = list(s('include'));
  if (s('exclude') !== undefined) patch.excludeVehicleIds = list(s('exclude'));
  const includeStatuses = s('include-statuses');
  if (includeStatuses !== undefined) patch.includeStatuses = subset(RECORD_STATUSES, includeStatuses, 'include-statuses');
  if (s('approved-groups') !== undefined) patch.approvedGroupIds = list(s('approved-groups'));
  // Duplicates and the 4-signal limit are the domain validator's (one message listing every problem).
  const signals = s('signals');
  if (signals !== undefined) patch.selectedSignals = subset(SELECTED_SIGNALS, signals, 'signals');
  if (Object.keys(patch).length === 0) fail(`connection:configure: nothing to change\n${USAGE}`);
  return patch;
}

/** Checks the command line completely and returns what to run; throws AdminError on any problem. */
function plan(command: string, rest: string[], values: Values): Plan {
  const a = checked(values);
  if (command !== 'revoke' && rest.length > 0) fail(`unexpected argument "${rest[0]}"\n${USAGE}`);
  switch (command) {
    case 'app:create': {
      const [name, environment] = [a.need('name'), oneOf(ENVIRONMENTS, a.need('env'), 'env')];
      return ({ creds }) => creds.createApplication(name, environment);
    }
    case 'key:create': {
      const name = a.need('name');
      return ({ creds }) => creds.createConsumerKey(name);
    }
    case 'operator:create': {
      const name = a.need('name');
      return ({ creds }) => creds.createOperator(name);
    }
    case 'token:issue': {
      const [app, connection] = [a.id('app'), a.id('connection')];
      return ({ creds }) => creds.issueConnectionToken(app, connection);
    }
    case 'grant:consumer': {
      const [key, connection] = [a.id('key'), a.id('connection')];
      const permissions: ConsumerPermission[] = subset(CONSUMER_PERMISSIONS, a.given('permissions'), 'permissions');
      return async ({ creds }) => (await creds.grantConsumer(key, connection, permissions), { ok: true, permissions });
    }
    case 'grant:app': {
      const [app, connection] = [a.id('app'), a.id('connection')];
      const operations: SyncOperation[] = subset(SYNC_OPERATIONS, a.given('operations'), 'operations');
      const history = values.history === true;
      return async ({ creds }) => (await creds.grantApplication(app, connection, operations, history), { ok: true, operations, history });
    }
    case 'revoke': {
      const [kind, id, extra] = rest;
      if ((kind !== 'application' && kind !== 'consumer-key' && kind !== 'connection-token' && kind !== 'operator') || !id || extra !== undefined) fail(USAGE);
      return async ({ creds }) => ({ ok: true, ...(await creds.revoke(kind, id)) });
    }
    case 'connection:create': {
      const provider: Provider = oneOf(PROVIDERS, a.need('provider'), 'provider');
      const environment: Environment = oneOf(ENVIRONMENTS, a.need('env'), 'env');
      const input = { customerId: a.need('customer'), provider, environment, providerCredentials: providerCredentials(a.str('credentials')) };
      return ({ connections }) => connections().create(input);
    }
    case 'connection:configure': {
      const connection = a.id('connection');
      const patch = patchFrom(a);
      const reason = statusReason(a.str('reason'));
      return ({ connections }) => connections().configure(connection, patch, reason);
    }
    case 'connection:pause':
    case 'connection:resume': {
      const connection = a.id('connection');
      const status = command === 'connection:pause' ? 'paused' : 'active';
      const reason = statusReason(a.str('reason'));
      return ({ connections }) => connections().configure(connection, { status }, reason);
    }
    case 'connection:activate': {
      const connection = a.id('connection');
      const signals = subset(SELECTED_SIGNALS, a.need('signals'), 'signals');
      return ({ connections }) => connections().activate(connection, signals);
    }
    case 'connection:geotab-binding': {
      const [connection, database, server] = [a.id('connection'), a.need('database'), a.need('server')];
      if (!/^https?:\/\/[^\s/]+\/?$/.test(server)) fail(`--server must be a base URL such as https://my.geotab.com, got "${server}"`);
      return ({ connections }) => connections().bindGeotab(connection, database, server.replace(/\/$/, ''));
    }
    case 'connection:show': {
      const connection = a.id('connection');
      return async ({ connections }) => (await connections().get(connection)) ?? fail('connection_not_found');
    }
    case 'list':
      return ({ creds }) => creds.list();
    case 'grants:republish':
      return async ({ creds }) => ({ applications: await creds.republishApplicationSnapshots() });
    default: {
      const webhook = webhookPlan(command, values);
      if (webhook) return ({ webhooks }) => webhook(webhooks);
      return fail(`unknown command ${command}\n${USAGE}`);
    }
  }
}

export async function runOperator(argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<unknown> {
  let parsed: { positionals: string[]; values: Values };
  try {
    parsed = parseArgs({ args: argv, allowPositionals: true, strict: true, options: OPTIONS });
  } catch (error) {
    // Unknown option, or a value missing after one: node's message names it.
    return fail(`${error instanceof Error ? error.message : String(error)}\n${USAGE}`);
  }
  const [command, ...rest] = parsed.positionals;
  if (!command) fail(USAGE);
  const run = plan(command, rest, parsed.values);

  // Beside `npm start`, its database (local-stack.json) unless DATABASE_URL says otherwise.
  const local = withLocalStack(env);
  const down = await embeddedDatabaseDown(local);
  if (down) fail(down);
  const orm = await createOrm({ clientUrl: resolveDatabaseUrl(local.env), schema: env.DB_SCHEMA || 'gateway', entities: gatewayEntities, migrations: gatewayMigrations, logger: () => undefined });
  // The newest commit of a change that can withdraw access, if any (see the header).
  let changedAt: number | undefined;
  const unhook = onChangesCommittedThrough(orm, () => (changedAt = performance.now()));
  try {
    await migrateUp(orm, { log: () => undefined });
    let secrets: SecretBox | undefined;
    const box = () => (secrets ??= new SecretBox(loadKeyMaterial(env).masterKey));
    const result = await run({
      creds: new CredentialsAdmin(orm),
      connections: () => new ConnectionsAdmin(orm, box()),
      // The URL rule is the deployment's (SWITCHYARD_ENV, default production), as for the API.
      webhooks: () => new WebhookEndpointsService(orm, box(), { environment: env.SWITCHYARD_ENV === 'sandbox' ? 'sandbox' : 'production', secretOverlapMs: gatewayEnvSchema.shape.WEBHOOK_SECRET_OVERLAP_MS.parse(env.WEBHOOK_SECRET_OVERLAP_MS) }),
    });
    const committedAt = changedAt;
    if (committedAt !== undefined) await new Promise((resolve) => setTimeout(resolve, Math.max(0, committedAt + PRINCIPAL_CACHE_TTL_MS - performance.now())));
    return result;
  } finally {
    unhook();
    await orm.close(true);
  }
}

/** The process entry: prints the result as JSON, or the reason on stderr; returns the exit code. */
export async function operatorMain(
  argv: string[],
  env: NodeJS.ProcessEnv = process.env,
  io: { out(text: string): void; err(text: string): void } = { out: (t) => console.log(t), err: (t) => console.error(t) },
): Promise<number> {
  try {
    io.out(JSON.stringify(await runOperator(argv, env), null, 2));
    return 0;
  } catch (error) {
    // Expected problems print their message; anything else its message only (no stack to the terminal).
    io.err(error instanceof AdminError ? error.message : `error: ${error instanceof Error ? error.message : String(error)}`);
    return 1;
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  process.exitCode = await operatorMain(process.argv.slice(2));
}
