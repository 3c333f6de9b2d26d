/**
 * The cap on open syncs per application (issue 14, item 3): an application with
 * OPEN_SYNCS_PER_APPLICATION syncs requested or in progress gets 409 `too_many_open_syncs` (nothing
 * created) for the next create, whichever of its connections it asks on; concurrent creates over two
 * connections stop at exactly the cap; cancelling one frees a place. Every response is validated
 * against the OpenAPI document. Mutation tried: the advisory lock in lockAndCountOpen removed — the
 * concurrent creates over two connections overshoot the cap (51 created, 3 runs of 3 at the cap of
 * 50; at a cap of 25 it was caught in 1 run of 2: only creates on different connections race, each
 * connection's own are serialized by its configuration row lock).
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { OPEN_SYNCS_PER_APPLICATION } from '@switchyard/contracts';
import { startTestGateway, type TestGateway } from './support.js';
import { createConnection, createSyncApp, jsonHeaders, waitForGrants, type SyncApp } from './syncs-fixture.js';

let gw: TestGateway;

beforeAll(async () => {
  gw = await startTestGateway({ syncOrchestrator: true, rpcTimeoutMs: 10_000 });
});

afterAll(async () => {
  await gw?.close();
});

const create = (app: SyncApp) => gw.call('POST', '/v1/syncs', { headers: jsonHeaders(app), body: '{}' });

describe('open syncs per application', () => {
  it(`stops concurrent creates over two connections at exactly ${OPEN_SYNCS_PER_APPLICATION}, then 409 too_many_open_syncs until one ends`, async () => {
    const first = await createSyncApp(gw, await createConnection(gw));
    const secondConnection = await createConnection(gw);
    await gw.credentials.grantApplication(first.id, secondConnection, ['sync.create', 'sync.read', 'sync.retry', 'sync.cancel'], true);
    const token = await gw.credentials.issueConnectionToken(first.id, secondConnection);
    await waitForGrants(gw, first.id);
    const second: SyncApp = { ...first, token: token.token, tokenId: token.id, connectionId: secondConnection, headers: { ...first.headers, 'connection-token': token.token } };

    const attempts = OPEN_SYNCS_PER_APPLICATION + 6;
    const answers = await Promise.all(Array.from({ length: attempts }, (_, i) => create(i % 2 === 0 ? first : second)));
    const created = answers.filter((a) => a.status === 201);
    const refused = answers.filter((a) => a.status === 409);
    process.stdout.write(`[open-syncs] ${attempts} concurrent creates over 2 connections → ${created.length}×201, ${refused.length}×409 too_many_open_syncs (cap ${OPEN_SYNCS_PER_APPLICATION})\n`);
    expect(created).toHaveLength(OPEN_SYNCS_PER_APPLICATION);
    expect(refused).toHaveLength(attempts - OPEN_SYNCS_PER_APPLICATION);
    for (const answer of refused) expect(answer.body).toEqual({ error: 'too_many_open_syncs' });

    // Cancelling one frees a place for exactly one more.
    const cancelled = created[0]!.body as { id: string };
    const owner = answers.indexOf(created[0]!) % 2 === 0 ? first : second;
    expect((await gw.call('POST', `/v1/syncs/${cancelled.id}/cancel`, { headers: owner.headers })).status).toBe(200);
    expect((await create(first)).status).toBe(201);
    expect((await create(second)).status).toBe(409);
  }, 60_000);
});
