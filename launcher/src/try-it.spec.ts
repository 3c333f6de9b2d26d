/**
 * The try-it block's connect-session walk-through (issue 13; decision 0022): how to pause a
 * connection, create a connect session and open its page, follow its status, install the activation
 * policy and disconnect — printed as numbered steps, never as bare `curl` lines, because the e2e
 * launcher scenario runs every bare curl line and expects a 200 GET (these change state).
 */
import { describe, expect, it } from '@jest/globals';
import { tryItBlock, type SandboxCredentials } from './sandbox-seed.js';

const credentials: SandboxCredentials = {
  baseUrl: 'http://127.0.0.1:3000',
  applicationSecret: 'sk_sandbox_x',
  consumerKey: 'pt_key',
  connections: [{ id: '11111111-1111-4111-8111-111111111111', provider: 'samsara', connectionToken: 'ct_x' }],
  simulators: { samsara: { baseUrl: 'http://127.0.0.1:4101', apiToken: 'samsara-sandbox-token' } },
};

describe('try-it block', () => {
  const block = tryItBlock(credentials, '/tmp/sandbox-credentials.json');
  const id = credentials.connections[0]!.id;

  it('prints how to pause a connection, open a connect page, follow it, activate and disconnect', () => {
    expect(block).toContain(`npm run operator -- connection:pause --connection ${id}`);
    expect(block).toContain(`curl -s -X POST http://127.0.0.1:3000/v1/connections/${id}/connect-sessions -H 'Authorization: Bearer pt_key'`);
    expect(block).toContain('open its "url"');
    expect(block).toContain(`/v1/connections/${id}/connect-sessions/<sessionId>`);
    expect(block).toContain(`npm run operator -- connection:activate --connection ${id} --signals`);
    expect(block).toContain(`curl -s -X POST http://127.0.0.1:3000/v1/connections/${id}/disconnect`);
  });

  it('keeps every state-changing line out of the bare curl lines the e2e scenario runs', () => {
    const bare = [...block.matchAll(/^│\s+(curl .*)$/gm)].map((m) => m[1] ?? '');
    expect(bare.length).toBeGreaterThan(3);
    expect(bare.filter((line) => / -X POST |connect-sessions|disconnect/.test(line))).toEqual([]);
  });
});
