/**
 * Operator CLI: `npm run operator -- <command> [options]`. Issues and revokes credentials, grants
 * permissions, creates and configures connections. Prints JSON; a secret is printed once, at issue,
 * and never stored in clear. Talks to the gateway schema directly (migrating it first) and leaves
 * event publication to the gateway's outbox relay.
 */
import { parseArgs } from 'node:util';
import { PROVIDERS, type Environment, type Provider } from '@switchyard/domain';
import { createOrm, migrateUp, resolveDatabaseUrl } from '@switchyard/persistence';
import type { ConsumerPermission, SyncOperation } from '../auth/principal.js';
import { gatewayEntities } from '../db/entities/index.js';
import { gatewayMigrations } from '../db/migrations/index.js';
import { ConnectionsAdmin, type ConnectionConfigPatch } from '../services/connections-admin.service.js';
import { AdminError, CredentialsAdmin } from '../services/credentials-admin.service.js';
import { loadKeyMaterial } from '../services/key-material.js';
import { SecretBox } from '../services/secret-box.js';

const USAGE = `usage: npm run operator -- <command> [options]
  app:create --name <n> --env sandbox|production        issue an application secret (sk_…)
  key:create --name <n>                                 issue a consumer key (pt_…)
  token:issue --app <id> --connection <id>              issue a Connection-Token (ct_…)
  grant:consumer --key <id> --connection <id> --permissions read,manage,history   (empty list revokes)
  grant:app --app <id> --connection <id> --operations sync.create,sync.read,sync.retry,sync.cancel [--history]
  revoke application|consumer-key|connection-token <id or display prefix>
  connection:create --customer <id> --provider samsara|motive|geotab --env sandbox|production [--credentials '<json>']
  connection:configure --connection <id> [--status active|paused|disconnected] [--unified-collection true|false]
      [--purposes vehicles,groupMemberships,trips] [--approved-vehicles a,b] [--include a,b] [--exclude a,b]
      [--include-statuses active,inactive] [--opt-ins groupInventory,vehicleMetadata,extendedTelemetry]
      [--approved-groups a,b] [--signals odometer,faults,engineHours,location]
  connection:show --connection <id>
  list`;

const list = (v: string | undefined): string[] => (v === undefined || v === '' ? [] : v.split(',').map((s) => s.trim()).filter(Boolean));

function flags<K extends string>(names: readonly K[], selected: string[]): Record<K, boolean> {
  for (const s of selected) if (!(names as readonly string[]).includes(s)) throw new AdminError(`unknown value "${s}" (expected ${names.join(', ')})`);
  return Object.fromEntries(names.map((n) => [n, selected.includes(n)])) as Record<K, boolean>;
}

export async function runOperator(argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<unknown> {
  const { positionals, values } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
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
    },
  });
  const [command, ...rest] = positionals;
  if (!command) throw new AdminError(USAGE);
  const need = (v: string | undefined, name: string): string => {
    if (!v) throw new AdminError(`--${name} is required\n${USAGE}`);
    return v;
  };

  const orm = await createOrm({ clientUrl: resolveDatabaseUrl(env), schema: env.DB_SCHEMA ?? 'gateway', entities: gatewayEntities, migrations: gatewayMigrations, logger: () => undefined });
  try {
    await migrateUp(orm, { log: () => undefined });
    const creds = new CredentialsAdmin(orm);
    const connections = () => new ConnectionsAdmin(orm, new SecretBox(loadKeyMaterial(env).masterKey));
    switch (command) {
      case 'app:create':
        return creds.createApplication(need(values.name, 'name'), need(values.env, 'env') as Environment);
      case 'key:create':
        return creds.createConsumerKey(need(values.name, 'name'));
      case 'token:issue':
        return creds.issueConnectionToken(need(values.app, 'app'), need(values.connection, 'connection'));
      case 'grant:consumer':
        await creds.grantConsumer(need(values.key, 'key'), need(values.connection, 'connection'), list(values.permissions) as ConsumerPermission[]);
        return { ok: true };
      case 'grant:app':
        await creds.grantApplication(need(values.app, 'app'), need(values.connection, 'connection'), list(values.operations) as SyncOperation[], values.history ?? false);
        return { ok: true };
      case 'revoke': {
        const [kind, id] = rest;
        if ((kind !== 'application' && kind !== 'consumer-key' && kind !== 'connection-token') || !id) throw new AdminError(USAGE);
        await creds.revoke(kind, id);
        return { ok: true };
      }
      case 'connection:create': {
        const provider = need(values.provider, 'provider');
        if (!(PROVIDERS as readonly string[]).includes(provider)) throw new AdminError(`unknown provider ${provider}`);
        return connections().create({
          customerId: need(values.customer, 'customer'),
          provider: provider as Provider,
          environment: need(values.env, 'env') as Environment,
          providerCredentials: values.credentials ? (JSON.parse(values.credentials) as Record<string, string>) : undefined,
        });
      }
      case 'connection:configure':
        return connections().configure(need(values.connection, 'connection'), patchFrom(values));
      case 'connection:show':
        return (await connections().get(need(values.connection, 'connection'))) ?? { error: 'connection_not_found' };
      case 'list':
        return creds.list();
      default:
        throw new AdminError(`unknown command ${command}\n${USAGE}`);
    }
  } finally {
    await orm.close(true);
  }
}

function patchFrom(values: Record<string, string | boolean | undefined>): ConnectionConfigPatch {
  const s = (k: string) => values[k] as string | undefined;
  const patch: { -readonly [K in keyof ConnectionConfigPatch]: ConnectionConfigPatch[K] } = {};
  if (s('status') !== undefined) patch.status = s('status') as ConnectionConfigPatch['status'];
  if (s('unified-collection') !== undefined) patch.unifiedCollection = s('unified-collection') === 'true';
  if (s('purposes') !== undefined) patch.purposes = flags(['vehicles', 'groupMemberships', 'trips'] as const, list(s('purposes')));
  if (s('opt-ins') !== undefined) patch.optIns = flags(['groupInventory', 'vehicleMetadata', 'extendedTelemetry'] as const, list(s('opt-ins')));
  if (s('approved-vehicles') !== undefined) patch.approvedVehicleIds = list(s('approved-vehicles'));
  if (s('include') !== undefined) patch.includeVehicleIds = list(s('include'));
  if (s('exclude') !== undefined) patch.excludeVehicleIds = list(s('exclude'));
  if (s('include-statuses') !== undefined) patch.includeStatuses = list(s('include-statuses')) as ConnectionConfigPatch['includeStatuses'];
  if (s('approved-groups') !== undefined) patch.approvedGroupIds = list(s('approved-groups'));
  if (s('signals') !== undefined) patch.selectedSignals = list(s('signals')) as ConnectionConfigPatch['selectedSignals'];
  return patch;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  runOperator(process.argv.slice(2)).then(
    (result) => console.log(JSON.stringify(result, null, 2)),
    (error: unknown) => {
      console.error(error instanceof AdminError ? error.message : error);
      process.exitCode = 1;
    },
  );
}
