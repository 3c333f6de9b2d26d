/**
 * A context's read past a database deadline answers 503, not 500 (issue 14, item 3): the directory
 * runs with a 300 ms `lock_timeout`; while another transaction holds its vehicle table in ACCESS
 * EXCLUSIVE mode, `GET …/vehicles` gives up waiting for the lock inside the directory's RPC handler
 * and the gateway answers 503 `service_unavailable` with `Retry-After` (validated against the
 * document); once the lock is released the same read is 200. The deadlines themselves and their
 * classification: libs/persistence/test/deadlines.int-spec.ts.
 * Mutation tried: `isDatabaseDeadline` left out of the request/reply handler's dependency rule
 * (libs/service-kit dependency-outage.ts `answersUnavailable`, used by bus-transport.ts `serve`):
 * the read answers 500 `internal_error`.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startDirectory } from '@switchyard/directory';
import { startTestGateway as startGatewayOnly } from '@switchyard/gateway/testing';
import { readConnection, readKey } from './reads-fixture.js';
import type { TestGateway } from './support.js';

let gw: TestGateway;

beforeAll(async () => {
  const gateway = await startGatewayOnly({
    rpcTimeoutMs: 10_000,
    beside: [{ name: 'directory', start: (options) => startDirectory({ ...options, databaseTimeouts: { lockMs: 300 } }) }],
  });
  gw = Object.assign(gateway, { directory: gateway.beside.directory });
}, 60_000);

afterAll(async () => {
  await gw?.close();
});

describe('database deadlines in a context', () => {
  it('answers 503 with Retry-After while the read waits past its lock deadline, and 200 once the lock is gone', async () => {
    const connectionId = await readConnection(gw, { approvedVehicleIds: [] });
    const { headers } = await readKey(gw, [connectionId]);
    const path = `/v1/connections/${connectionId}/vehicles`;
    expect((await gw.call('GET', path, { headers })).status).toBe(200);

    const holder = gw.directory!.runtime.orm.em.fork();
    const schema = String(holder.config.get('schema'));
    await holder.begin();
    try {
      await holder.execute(`lock table "${schema}".vehicle in access exclusive mode`);
      const blocked = await gw.call('GET', path, { headers });
      console.log(`[db-deadlines] directory read with its vehicle table locked (lock_timeout 300 ms): ${blocked.status} ${JSON.stringify(blocked.body)} Retry-After ${blocked.headers.get('retry-after')}`);
      expect({ status: blocked.status, body: blocked.body }).toEqual({ status: 503, body: { error: 'service_unavailable' } });
      expect(blocked.headers.get('retry-after')).toMatch(/^[1-9]\d*$/);
    } finally {
      await holder.rollback();
    }
    expect((await gw.call('GET', path, { headers })).status).toBe(200);
  });
});
