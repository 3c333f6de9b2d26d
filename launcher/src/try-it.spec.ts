/**
 * The try-it block's connect-session walk-through (issue 13; decision 0022): how to pause a
 * connection, create a connect session and open its page, follow its status, install the activation
 * policy and disconnect — printed as numbered steps, never as bare `curl` lines, because the e2e
 * launcher scenario runs every bare curl line and expects a 200 GET (these change state). The
 * operator steps run as printed: the e2e launcher scenario runs step 1 (issue 23).
 */
import { describe, expect, it } from '@jest/globals';
import path from 'node:path';
import { PROVIDERS } from '@switchyard/domain';
import { sandboxConnectionConfig, tryItBlock, type SandboxCredentials } from './sandbox-seed.js';

const credentials: SandboxCredentials = {
  baseUrl: 'http://127.0.0.1:3000',
  applicationSecret: 'sk_sandbox_x',
  consumerKey: 'pt_key',
  operatorCredential: 'op_console',
  connections: [{ id: '11111111-1111-4111-8111-111111111111', provider: 'samsara', connectionToken: 'ct_x' }],
  simulators: { samsara: { baseUrl: 'http://127.0.0.1:4101', apiToken: 'samsara-sandbox-token' } },
};

describe('try-it block', () => {
  const block = tryItBlock(credentials, '/tmp/sandbox-credentials.json');
  const id = credentials.connections[0]!.id;

  it('prints the operator console and its credential', () => {
    expect(block).toContain('│ Operator console: http://127.0.0.1:3000/console   sign in with the operator credential op_console\n');
  });

  it('prints how to pause a connection, open a connect page, follow it, activate and disconnect', () => {
    expect(block).toContain(`npm run operator -- connection:pause --connection ${id}`);
    expect(block).toContain(`curl -s -X POST http://127.0.0.1:3000/v1/connections/${id}/connect-sessions -H 'Authorization: Bearer pt_key'`);
    expect(block).toContain('open its "url"');
    expect(block).toContain(`/v1/connections/${id}/connect-sessions/<sessionId>`);
    expect(block).toContain(`npm run operator -- connection:activate --connection ${id} --signals`);
    expect(block).toContain(`curl -s -X POST http://127.0.0.1:3000/v1/connections/${id}/disconnect`);
  });

  it('names a data directory other than ./.switchyard before each operator step, so the CLI finds that start\'s database (local-stack.json)', () => {
    expect(block).toContain(`1. SWITCHYARD_DATA_DIR=/tmp npm run operator -- connection:pause --connection ${id}`);
    expect(block).toContain(`4. SWITCHYARD_DATA_DIR=/tmp npm run operator -- connection:activate --connection ${id}`);
    const atDefault = tryItBlock(credentials, path.resolve('.switchyard', 'sandbox-credentials.json'));
    expect(atDefault).toContain(`1. npm run operator -- connection:pause --connection ${id}\n`);
    expect(tryItBlock(credentials, "/tmp/my data/sandbox-credentials.json")).toContain(`1. SWITCHYARD_DATA_DIR='/tmp/my data' npm run operator --`);
  });

  it('keeps every state-changing line out of the bare curl lines the e2e scenario runs', () => {
    const bare = [...block.matchAll(/^│\s+(curl .*)$/gm)].map((m) => m[1] ?? '');
    expect(bare.length).toBeGreaterThan(3);
    expect(bare.filter((line) => / -X POST |connect-sessions|disconnect/.test(line))).toEqual([]);
  });

  // mutation: seed every connection with extendedTelemetry: false (as before issue 23) → this fails.
  it('seeds samsara and geotab with the extended-telemetry opt-in and leaves motive without it, to show the rule', () => {
    expect(Object.fromEntries(PROVIDERS.map((p) => [p, sandboxConnectionConfig(p).optIns]))).toEqual({
      samsara: { groupInventory: false, vehicleMetadata: true, extendedTelemetry: true },
      motive: { groupInventory: false, vehicleMetadata: true, extendedTelemetry: false },
      geotab: { groupInventory: false, vehicleMetadata: true, extendedTelemetry: true },
    });
  });

  it('says which connections have extended telemetry and how to opt the others in', () => {
    const motive = { id: '22222222-2222-4222-8222-222222222222', provider: 'motive' as const, connectionToken: 'ct_y' };
    const two = { ...credentials, connections: [...credentials.connections, motive] };
    const printed = tryItBlock(two, '/tmp/sandbox-credentials.json', undefined, undefined, new Set([id]));
    expect(printed).toContain(`/v1/connections/${id} -H 'Authorization: Bearer pt_key'   # samsara, extended telemetry opted in`);
    expect(printed).toContain(`/v1/connections/${motive.id} -H 'Authorization: Bearer pt_key'   # motive, no extended telemetry`);
    expect(printed).toContain(`npm run operator -- connection:configure --connection ${motive.id} --opt-ins vehicleMetadata,extendedTelemetry`);
    expect(printed).not.toContain(`--connection ${id} --opt-ins`);
  });
});
