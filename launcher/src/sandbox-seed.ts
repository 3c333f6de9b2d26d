/**
 * First-start sandbox data: a sandbox application, a consumer key with read, manage and history
 * grants, and one connection per provider with its Connection-Token and every sync operation
 * granted; each connection's provider credentials are its simulator account's (sealed at rest).
 * Written to `<data dir>/sandbox-credentials.json` with mode 0600 — the only place the secrets exist
 * in clear, next to the simulators' base URLs and credentials so they can be called with curl as the
 * real providers would be. On a restart the file is reused when its credentials still authenticate
 * against the database (same data dir, same database); otherwise the sandbox is seeded anew.
 */
import { existsSync, readFileSync, writeFileSync, chmodSync } from 'node:fs';
import path from 'node:path';
import { PROVIDERS, vehicleId, type Provider } from '@switchyard/domain';
import { ConnectionsAdmin, CredentialsAdmin, SecretBox, credentialExists, type ConnectionConfigPatch } from '@switchyard/gateway';
import type { Orm } from '@switchyard/persistence';
import { dataDirOf } from '@switchyard/service-kit';
import type { SimulatorCredentials } from '@switchyard/sandbox';
import { capabilitiesFor } from '@switchyard/providers';
import { simulatorVehicleIds } from './simulator-roster.js';

export interface SandboxCredentials {
  baseUrl: string;
  applicationSecret: string;
  consumerKey: string;
  /** Signs in to the operator console at /console (decision 0045); never an API credential. */
  operatorCredential: string;
  connections: { id: string; provider: Provider; connectionToken: string }[];
  simulators: SimulatorCredentials;
}

/** A simulator account as the connection stores it (sealed): the credentials without the base URL. */
function providerCredentials(simulators: SimulatorCredentials, provider: Provider): Record<string, string> | undefined {
  const entry = simulators[provider];
  if (!entry) return undefined;
  const { baseUrl: _baseUrl, ...credentials } = entry;
  return credentials;
}

/**
 * The one sandbox connection left without the extended-telemetry opt-in, to show the rule (spec:
 * metrics beyond the core ones only with an explicit opt-in): its telemetry omits speed, heading,
 * fuel, battery, engine state and idle time. Motive, whose extended fields are the least confirmed
 * (conditional in its capabilities), so the two opted-in connections show the most.
 */
export const SANDBOX_WITHOUT_EXTENDED_TELEMETRY: Provider = 'motive';

/** A sandbox connection's configuration at seeding (its approved vehicles are the simulator's roster). */
export function sandboxConnectionConfig(provider: Provider) {
  return {
    unifiedCollection: true,
    // Every purpose the provider can serve (Motive reports no vehicle group memberships).
    purposes: { vehicles: true, groupMemberships: capabilitiesFor(provider).fields['vehicle.groups'] !== 'unsupported', trips: true },
    optIns: { groupInventory: false, vehicleMetadata: true, extendedTelemetry: provider !== SANDBOX_WITHOUT_EXTENDED_TELEMETRY },
    selectedSignals: ['odometer', 'faults', 'engineHours', 'location'],
  } satisfies ConnectionConfigPatch;
}

/**
 * Which sandbox connections have the extended-telemetry opt-in now (the data directory may predate
 * the seed above, or an operator changed it), for the try-it block.
 */
export async function extendedTelemetryOn(orm: Orm, masterKey: string, c: SandboxCredentials): Promise<Set<string>> {
  const admin = new ConnectionsAdmin(orm, new SecretBox(masterKey));
  const on = new Set<string>();
  for (const conn of c.connections) if ((await admin.get(conn.id))?.optIns.extendedTelemetry) on.add(conn.id);
  return on;
}

export function credentialsPath(dataDir: string): string {
  return path.join(dataDir, 'sandbox-credentials.json');
}

export async function ensureSandbox(
  orm: Orm,
  dataDir: string,
  baseUrl: string,
  masterKey: string,
  simulators: SimulatorCredentials,
): Promise<{ credentials: SandboxCredentials; created: boolean }> {
  const file = credentialsPath(dataDir);
  if (existsSync(file)) {
    const stored = JSON.parse(readFileSync(file, 'utf8')) as SandboxCredentials;
    if ((await credentialExists(orm, stored.consumerKey)) && (await credentialExists(orm, stored.applicationSecret))) {
      // A data directory seeded before the console (or whose operator credential was revoked) gets one now.
      const operatorCredential = stored.operatorCredential && (await credentialExists(orm, stored.operatorCredential)) ? stored.operatorCredential : (await new CredentialsAdmin(orm).createOperator('sandbox operator')).token;
      const credentials = { ...stored, operatorCredential, baseUrl, simulators };
      write(file, credentials);
      return { credentials, created: false };
    }
  }
  const creds = new CredentialsAdmin(orm);
  const connectionsAdmin = new ConnectionsAdmin(orm, new SecretBox(masterKey));
  const app = await creds.createApplication('sandbox application', 'sandbox');
  const key = await creds.createConsumerKey('sandbox consumer key');
  const operator = await creds.createOperator('sandbox operator');
  const connections: SandboxCredentials['connections'] = [];
  for (const provider of PROVIDERS) {
    // Configured in its first revision: the scheduler collects it at once (no window with the gate closed).
    const connection = await connectionsAdmin.create({
      customerId: `sandbox-${provider}-customer`,
      provider,
      environment: 'sandbox',
      providerCredentials: providerCredentials(simulators, provider),
      config: { ...sandboxConnectionConfig(provider), approvedVehicleIds: await simulatorVehicleIds(provider, simulators) },
    });
    await creds.grantConsumer(key.id, connection.connectionId, ['read', 'manage', 'history']);
    await creds.grantApplication(app.id, connection.connectionId, ['sync.create', 'sync.read', 'sync.retry', 'sync.cancel'], true);
    const token = await creds.issueConnectionToken(app.id, connection.connectionId);
    connections.push({ id: connection.connectionId, provider, connectionToken: token.token });
  }
  const credentials: SandboxCredentials = { baseUrl, applicationSecret: app.token, consumerKey: key.token, operatorCredential: operator.token, connections, simulators };
  write(file, credentials);
  return { credentials, created: true };
}

/**
 * The operator's Geotab database/server binding for the sandbox Geotab connection (its simulator
 * account), on every start (the simulator's port may change), so a connect session can be created
 * for it once it is paused (spec 4.3 rule 3; decision 0022).
 */
export async function bindSandboxGeotab(orm: Orm, masterKey: string, c: SandboxCredentials): Promise<void> {
  const geotab = c.simulators.geotab;
  const connection = c.connections.find((conn) => conn.provider === 'geotab');
  if (!geotab || !connection) return;
  await new ConnectionsAdmin(orm, new SecretBox(masterKey)).bindGeotab(connection.id, geotab.database, geotab.baseUrl);
}

function write(file: string, credentials: SandboxCredentials) {
  writeFileSync(file, `${JSON.stringify(credentials, null, 2)}\n`, { mode: 0o600 });
  chmodSync(file, 0o600);
}

/**
 * The `vcl_` id of the first connection's first simulator vehicle (minted from connection, provider
 * and provider id, as the contexts mint it), for the try-it telemetry line; undefined without one.
 * It is approved by the sandbox seed, so its telemetry answers 200 at once (every metric `missing`
 * until the first collection stored readings).
 */
export async function exampleVehicleId(c: SandboxCredentials): Promise<string | undefined> {
  const first = c.connections[0];
  if (!first) return undefined;
  const [sourceId] = await simulatorVehicleIds(first.provider, c.simulators);
  return sourceId === undefined ? undefined : vehicleId({ connectionId: first.id, provider: first.provider, sourceId });
}

/**
 * How to call the operator CLI from the repository root so it finds this start's database: the CLI
 * reads `<data dir>/local-stack.json` (the launcher's choice), so only a data directory other than
 * the default `./.switchyard` has to be named.
 */
function operatorCommand(dataDir: string): string {
  if (dataDir === dataDirOf({})) return 'npm run operator --';
  const quoted = /^[\w@%+=:,./-]+$/.test(dataDir) ? dataDir : `'${dataDir.replace(/'/g, `'\\''`)}'`;
  return `SWITCHYARD_DATA_DIR=${quoted} npm run operator --`;
}

/**
 * `metrics`: each service's /metrics URL on its internal port (the gateway's METRICS_PORT first,
 * then the contexts'; none when METRICS_PORT is 0); `vehicle`: exampleVehicleId's; `extended`:
 * extendedTelemetryOn's (unknown: no remark per connection).
 */
export function tryItBlock(c: SandboxCredentials, credentialsFile: string, metrics: readonly { service: string; url: string }[] = [], vehicle?: string, extended?: ReadonlySet<string>): string {
  const width = Math.max(0, ...metrics.map((m) => m.service.length));
  const first = c.connections[0];
  const lines = [
    '',
    '┌ Switchyard sandbox is up',
    `│ credentials: ${credentialsFile} (mode 0600; secrets shown only there and below)`,
    `│ API reference: ${c.baseUrl}/docs   OpenAPI: ${c.baseUrl}/openapi.json`,
    `│ Operator console: ${c.baseUrl}/console   sign in with the operator credential ${c.operatorCredential}`,
    ...(metrics.length > 0 ? ["│ Prometheus metrics (internal ports, not the API's; docs/operations.md):", ...metrics.map((m) => `│   ${m.service.padEnd(width)}  ${m.url}`)] : []),
    '│',
    '│ Try it:',
    `│   curl -s ${c.baseUrl}/v1/catalog -H 'Authorization: Bearer ${c.consumerKey}'`,
  ];
  for (const conn of c.connections) {
    const remark = extended ? (extended.has(conn.id) ? ', extended telemetry opted in' : ', no extended telemetry') : '';
    lines.push(`│   curl -s ${c.baseUrl}/v1/connections/${conn.id} -H 'Authorization: Bearer ${c.consumerKey}'   # ${conn.provider}${remark}`);
  }
  if (first) lines.push(`│   curl -s ${c.baseUrl}/v1/connections/${first.id}/capabilities -H 'Authorization: Bearer ${c.consumerKey}'`);
  if (first) lines.push(`│   curl -s ${c.baseUrl}/v1/connections/${first.id}/locations -H 'Authorization: Bearer ${c.consumerKey}'`);
  if (first && vehicle) lines.push(`│   curl -s ${c.baseUrl}/v1/connections/${first.id}/vehicles/${vehicle}/telemetry -H 'Authorization: Bearer ${c.consumerKey}'`);
  if (first) {
    lines.push(`│   curl -s ${c.baseUrl}/v1/syncs -H 'Authorization: Bearer ${c.applicationSecret}' -H 'Connection-Token: ${first.connectionToken}'`);
  }
  lines.push(`│   curl -s ${c.baseUrl}/readyz`);
  const without = extended ? c.connections.filter((conn) => !extended.has(conn.id)) : [];
  if (without.length > 0) {
    lines.push(
      '│',
      `│ Extended telemetry (speed, heading, fuel, battery, engine state, idle time) needs the connection's opt-in: ${without.map((conn) => conn.provider).join(', ')} has none,`,
      '│ so its telemetry omits those metrics. To opt in:',
      ...without.map((conn) => `│   ${operatorCommand(path.dirname(credentialsFile))} connection:configure --connection ${conn.id} --opt-ins vehicleMetadata,extendedTelemetry`),
    );
  }
  if (first) {
    // Numbered, not bare curl lines: they change state (the e2e launcher scenario runs every bare one).
    const auth = `-H 'Authorization: Bearer ${c.consumerKey}'`;
    const operator = operatorCommand(path.dirname(credentialsFile));
    lines.push(
      '│',
      `│ Connect a fleet in a browser (the customer's authorization page; docs/decisions/0022-connect-sessions.md), ${first.provider}:`,
      `│   1. ${operator} connection:pause --connection ${first.id}`,
      `│   2. curl -s -X POST ${c.baseUrl}/v1/connections/${first.id}/connect-sessions ${auth}`,
      '│      and open its "url" within ten minutes (sign in at the simulator, or paste its API token shown below)',
      `│   3. curl -s ${c.baseUrl}/v1/connections/${first.id}/connect-sessions/<sessionId> ${auth}   # until "complete"`,
      `│   4. ${operator} connection:activate --connection ${first.id} --signals <the approved ones, e.g. odometer,location>`,
      `│   Disconnect: curl -s -X POST ${c.baseUrl}/v1/connections/${first.id}/disconnect ${auth}`,
    );
  }
  const { samsara, motive, geotab } = c.simulators;
  if (samsara || motive || geotab) lines.push('│', '│ The provider simulators, called as the real APIs are:');
  if (samsara) lines.push(`│   curl -s '${samsara.baseUrl}/fleet/vehicles?limit=3' -H 'Authorization: Bearer ${samsara.apiToken}'   # samsara`);
  if (motive) lines.push(`│   curl -s '${motive.baseUrl}/v1/vehicles?per_page=3' -H 'X-Api-Key: ${motive.apiKey}' -H 'X-Metric-Units: true'   # motive`);
  if (geotab) {
    const body = JSON.stringify({ method: 'Authenticate', params: { database: geotab.database, userName: geotab.userName, password: geotab.password } });
    lines.push(`│   curl -s ${geotab.baseUrl}/apiv1 -H 'Content-Type: application/json' -d '${body}'   # geotab`);
  }
  lines.push('└', '');
  return lines.join('\n');
}
