/**
 * The cap on open syncs per application (issue 14, item 3): an application with
 * OPEN_SYNCS_PER_APPLICATION syncs requested or in progress gets 409 `too_many_open_syncs` (nothing
 * created) for the next create, whichever of its connections it asks on; concurrent creates over two
 * connections stop at exactly the cap; cancelling one frees a place. A retry reopens a failed sync,
 * so it is held to the same cap: concurrent retries of failed syncs stop at exactly the cap too, the
 * rest answer 409 `too_many_open_syncs` and stay failed. Every response is validated against the
 * OpenAPI document. Mutations tried: the advisory lock in lockAndCountOpen removed — the
 * concurrent creates over two connections overshoot the cap (51 created, 3 runs of 3 at the cap of
 * 50; at a cap of 25 it was caught in 1 run of 2: only creates on different connections race, each
 * connection's own are serialized by its configuration row lock); the cap check removed from
 * `retry` (SyncLifecycleService.assertOpenSyncRoom not called) — all 20 retries reopen, 60 open.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { OPEN_SYNCS_PER_APPLICATION } from '@switchyard/contracts';
import { startTestGateway, type TestGateway } from './support.js';
import { createConnection, createSyncApp, jsonHeaders, waitForGrants, type SyncApp } from './syncs-fixture.js';

/** One application with a sync token on each of two connections (its syncs on both count against one cap). */
async function appOnTwoConnections(): Promise<[SyncApp, SyncApp]> {
  const first = await createSyncApp(gw, await createConnection(gw));
  const secondConnection = await createConnection(gw);
  await gw.credentials.grantApplication(first.id, secondConnection, ['sync.create', 'sync.read', 'sync.retry', 'sync.cancel'], true);
  const token = await gw.credentials.issueConnectionToken(first.id, secondConnection);
  await waitForGrants(gw, first.id);
  return [first, { ...first, token: token.token, tokenId: token.id, connectionId: secondConnection, headers: { ...first.headers, 'connection-token': token.token } }];
}

/** The application's open (requested or in progress) syncs, read from the orchestrator's table. */
async function openSyncs(applicationId: string): Promise<number> {
  const em = gw.orchestrator!.runtime.orm.em.fork();
  const rows = await em.execute<{ n: string }[]>(
    `select count(*)::text as n from "${em.config.get('schema')}"."sync" where application_id = ?::uuid and status in ('requested', 'in_progress')`,
    [applicationId],
  );
  return Number(rows[0]!.n);
}

let gw: TestGateway;

beforeAll(async () => {
  // Creates of one application serialize on its advisory lock: 50 at once on a loaded CI machine can
  // take longer than 10 s for the last one (one such run answered some of them 503 after the timeout).
  gw = await startTestGateway({ syncOrchestrator: true, rpcTimeoutMs: 30_000 });
});

afterAll(async () => {
  await gw?.close();
});

const create = (app: SyncApp) => gw.call('POST', '/v1/syncs', { headers: jsonHeaders(app), body: '{}' });

describe('open syncs per application', () => {
  it(`stops concurrent creates over two connections at exactly ${OPEN_SYNCS_PER_APPLICATION}, then 409 too_many_open_syncs until one ends`, async () => {
    const [first, second] = await appOnTwoConnections();

    const attempts = OPEN_SYNCS_PER_APPLICATION + 6;
    const answers = await Promise.all(Array.from({ length: attempts }, (_, i) => create(i % 2 === 0 ? first : second)));
    expect(answers.filter((a) => a.status !== 201 && a.status !== 409).map((a) => [a.status, a.body])).toEqual([]);
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

  it(`holds retries of failed syncs to the same cap: concurrent retries over two connections reopen up to exactly ${OPEN_SYNCS_PER_APPLICATION}`, async () => {
    const apps = await appOnTwoConnections();
    const cancelledCount = 20;
    // The cap filled, then 20 of them cancelled (failed, retryable), then 10 new ones: 40 open.
    const created = await Promise.all(Array.from({ length: OPEN_SYNCS_PER_APPLICATION }, (_, i) => create(apps[i % 2]!).then((a) => ({ app: apps[i % 2]!, id: (a.body as { id: string }).id, status: a.status }))));
    expect(created.filter((c) => c.status !== 201).map((c) => c.status)).toEqual([]);
    const failed = created.slice(0, cancelledCount);
    for (const sync of failed) expect((await gw.call('POST', `/v1/syncs/${sync.id}/cancel`, { headers: sync.app.headers })).status).toBe(200);
    for (let i = 0; i < cancelledCount / 2; i++) expect((await create(apps[i % 2]!)).status).toBe(201);
    const openBefore = await openSyncs(apps[0].id);
    expect(openBefore).toBe(OPEN_SYNCS_PER_APPLICATION - cancelledCount / 2);

    const answers = await Promise.all(failed.map((sync) => gw.call('POST', `/v1/syncs/${sync.id}/retry`, { headers: sync.app.headers })));
    const reopened = answers.filter((a) => a.status === 200);
    const refused = answers.filter((a) => a.status === 409);
    const openAfter = await openSyncs(apps[0].id);
    process.stdout.write(
      `[open-syncs] ${failed.length} concurrent retries of failed syncs with ${openBefore} open → ${reopened.length}×200, ${refused.length}×409 too_many_open_syncs; ${openAfter} open (cap ${OPEN_SYNCS_PER_APPLICATION})\n`,
    );
    expect(openAfter).toBe(OPEN_SYNCS_PER_APPLICATION);
    expect(reopened).toHaveLength(OPEN_SYNCS_PER_APPLICATION - openBefore);
    expect(refused).toHaveLength(failed.length - reopened.length);
    for (const answer of refused) expect(answer.body).toEqual({ error: 'too_many_open_syncs' });
    // A refused retry leaves its sync failed; at the cap a create is refused too.
    const stillFailed = failed.filter((_, i) => answers[i]!.status === 409);
    for (const sync of stillFailed) expect((await gw.call('GET', `/v1/syncs/${sync.id}`, { headers: sync.app.headers })).body).toMatchObject({ status: 'failed' });
    expect((await create(apps[0])).status).toBe(409);
  }, 60_000);
});
