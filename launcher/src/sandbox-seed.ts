/**
 * First-start sandbox data: a sandbox application, a consumer key with read, manage and history
 * grants, and one connection per provider with its Connection-Token and every sync operation
 * granted. Written to `<data dir>/sandbox-credentials.json` with mode 0600 — the only place the
 * secrets exist in clear. On a restart the file is reused when its credentials still authenticate
 * against the database (same data dir, same database); otherwise the sandbox is seeded anew.
 */
import { existsSync, readFileSync, writeFileSync, chmodSync } from 'node:fs';
import path from 'node:path';
import { PROVIDERS, type Provider } from '@switchyard/domain';
import { ConnectionsAdmin, CredentialsAdmin, SecretBox, credentialExists } from '@switchyard/gateway';
import type { Orm } from '@switchyard/persistence';

export interface SandboxCredentials {
  baseUrl: string;
  applicationSecret: string;
  consumerKey: string;
  connections: { id: string; provider: Provider; connectionToken: string }[];
}

export function credentialsPath(dataDir: string): string {
  return path.join(dataDir, 'sandbox-credentials.json');
}

export async function ensureSandbox(orm: Orm, dataDir: string, baseUrl: string, masterKey: string): Promise<{ credentials: SandboxCredentials; created: boolean }> {
  const file = credentialsPath(dataDir);
  if (existsSync(file)) {
    const stored = JSON.parse(readFileSync(file, 'utf8')) as SandboxCredentials;
    if ((await credentialExists(orm, stored.consumerKey)) && (await credentialExists(orm, stored.applicationSecret))) {
      const credentials = { ...stored, baseUrl };
      write(file, credentials);
      return { credentials, created: false };
    }
  }
  const creds = new CredentialsAdmin(orm);
  const connectionsAdmin = new ConnectionsAdmin(orm, new SecretBox(masterKey));
  const app = await creds.createApplication('sandbox application', 'sandbox');
  const key = await creds.createConsumerKey('sandbox consumer key');
  const connections: SandboxCredentials['connections'] = [];
  for (const provider of PROVIDERS) {
    const connection = await connectionsAdmin.create({ customerId: `sandbox-${provider}-customer`, provider, environment: 'sandbox' });
    await connectionsAdmin.configure(connection.connectionId, {
      unifiedCollection: true,
      purposes: { vehicles: true, groupMemberships: true, trips: true },
      optIns: { groupInventory: false, vehicleMetadata: true, extendedTelemetry: false },
      selectedSignals: ['odometer', 'faults', 'engineHours', 'location'],
    });
    await creds.grantConsumer(key.id, connection.connectionId, ['read', 'manage', 'history']);
    await creds.grantApplication(app.id, connection.connectionId, ['sync.create', 'sync.read', 'sync.retry', 'sync.cancel'], true);
    const token = await creds.issueConnectionToken(app.id, connection.connectionId);
    connections.push({ id: connection.connectionId, provider, connectionToken: token.token });
  }
  const credentials: SandboxCredentials = { baseUrl, applicationSecret: app.token, consumerKey: key.token, connections };
  write(file, credentials);
  return { credentials, created: true };
}

function write(file: string, credentials: SandboxCredentials) {
  writeFileSync(file, `${JSON.stringify(credentials, null, 2)}\n`, { mode: 0o600 });
  chmodSync(file, 0o600);
}

export function tryItBlock(c: SandboxCredentials, credentialsFile: string): string {
  const first = c.connections[0];
  const lines = [
    '',
    '┌ Switchyard sandbox is up',
    `│ credentials: ${credentialsFile} (mode 0600; secrets shown only there and below)`,
    `│ API reference: ${c.baseUrl}/docs   OpenAPI: ${c.baseUrl}/openapi.json`,
    '│',
    '│ Try it:',
    `│   curl -s ${c.baseUrl}/v1/catalog -H 'Authorization: Bearer ${c.consumerKey}'`,
  ];
  for (const conn of c.connections) {
    lines.push(`│   curl -s ${c.baseUrl}/v1/connections/${conn.id} -H 'Authorization: Bearer ${c.consumerKey}'   # ${conn.provider}`);
  }
  if (first) lines.push(`│   curl -s ${c.baseUrl}/v1/connections/${first.id}/capabilities -H 'Authorization: Bearer ${c.consumerKey}'`);
  lines.push(`│   curl -s ${c.baseUrl}/readyz`, '└', '');
  return lines.join('\n');
}
