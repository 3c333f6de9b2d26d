/**
 * The operator console in a real browser (issue 30; decisions 0044, 0045): one Chromium
 * (playwright-core, headless, --no-sandbox, the connect page's flags) over a gateway, directory,
 * telemetry-ingest, fault-feed, the gateway's dead-letter role and a collecting sync-orchestrator
 * on the real PostgreSQL and NATS, with a Samsara simulator of three vehicles — one connection
 * collected by an internal run (its vehicles, latest telemetry and history), one paused with a
 * reason, two dead letters.
 *
 * Proven here: signing in takes an operator credential and refuses a consumer key; the session
 * cookie is HttpOnly and SameSite=Strict (Secure outside the sandbox: console-auth.spec.ts); every
 * page renders with that data (connections, a connection's runs with units by state, dead letters,
 * the fleet map, a vehicle's telemetry and 7-day utilization; freshness per signal as the public
 * freshness read gives it) and axe-core (injected into the page)
 * finds no serious or critical violation on any; the browser asks nothing of any origin but the
 * console's own (every request logged; anything else aborted and recorded); the paused connection
 * shows as paused with its reason; the map draws one marker per vehicle with a stored location;
 * a dead letter replayed from the page disappears and its message is applied, another discarded
 * from the page disappears — both done by the dead-letter role (decision 0046: its audit lines name
 * this operator; the gateway only asked it), the path that works on the shipped NATS users
 * (nats-permissions.int-spec.ts runs it under them); a POST without the session's CSRF token is
 * refused and changes nothing.
 * Mutations tried: the CSRF check removed from ConsoleController.authorizedPost → the token-less
 * replay answers 303 and the dead letter is gone, "refuses a POST without the CSRF token" fails;
 * ConsoleReads.replay/discard on the gateway's own bus (`bus.deadLetters()`, the first console's
 * path) → no audit line of the role, "replays … and discards" fails.
 *
 * One browser, a three-vehicle fleet: the suite's cost is the internal run (~10 s) and six page loads.
 * A missing Chromium fails the suite with the command that installs it (CI installs it).
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { existsSync, mkdirSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { ConnectionsAdmin, CredentialsAdmin, SecretBox } from '@switchyard/gateway';
import { CONSUMERS, deadLetterSubject, EVENTS, subjectFor, type ConnectionFreshnessV1, type ConnectionHealthV1, type DeadLetterV1, type MessageBus } from '@switchyard/messaging';
import { collectPages, createSamsaraAdapter } from '@switchyard/providers';
import { pollUntil } from '@switchyard/testing';
import { SCHEDULED_ORIGIN, SyncLifecycleService } from '@switchyard/sync-orchestrator';
import { PipelineStack, type PipelineConnection } from './pipeline-stack.js';

const CHROMIUM = '/usr/bin/chromium';
const ARGS = ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-quic'];
const SCREENSHOTS = path.join(import.meta.dirname, '..', 'screenshots');
const AXE = createRequire(import.meta.url).resolve('axe-core/axe.min.js');
const PAUSE_REASON = 'customer asked to stop during the contract renewal';

let stack: PipelineStack;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let bus: MessageBus;
let origin: string;
let live: PipelineConnection;
let pausedId: string;
let operatorToken: string;
let operatorId: string;
let consumerKey: string;
let runId: string;
const requested: string[] = [];
const foreign: string[] = [];
const pageErrors: string[] = [];

/** axe-core in the page (injected; the context bypasses the page's CSP for it): no serious or critical violation. */
async function expectAccessible(p: Page): Promise<void> {
  await p.addScriptTag({ path: AXE });
  const violations = await p.evaluate(async () => {
    const axe = (globalThis as unknown as { axe: { run(): Promise<{ violations: { id: string; impact: string | null; nodes: { target: unknown }[] }[] }> } }).axe;
    return (await axe.run()).violations.map((v) => ({ id: v.id, impact: v.impact, targets: v.nodes.map((n) => n.target) }));
  });
  expect(violations.filter((v) => v.impact === 'serious' || v.impact === 'critical')).toEqual([]);
}

async function screenshot(p: Page, name: string): Promise<void> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  const file = path.join(SCREENSHOTS, `console-${name}.png`);
  await p.screenshot({ path: file, fullPage: true });
  expect(statSync(file).size).toBeGreaterThan(5_000);
}

/** Opens a console page, expects 200, checks accessibility and takes its screenshot. */
async function visit(pathname: string, name: string): Promise<void> {
  const res = await page.goto(`${origin}${pathname}`, { waitUntil: 'networkidle' });
  expect([pathname, res?.status()]).toEqual([pathname, 200]);
  await expectAccessible(page);
  await screenshot(page, name);
}

/** A dead letter as a consumer writes it: a health observation of the paused connection the gateway's consumer gave up on. */
async function deadLetter(observedAt: string, detail: string): Promise<void> {
  const health: ConnectionHealthV1 = { connectionId: pausedId, observedAt, outcome: 'success', errorCode: null, scope: 'core', nextRetryAt: null, sequence: '9000' };
  const envelope: DeadLetterV1 = {
    originalSubject: subjectFor(EVENTS.connectionHealth.subject, pausedId),
    stream: 'EVENTS',
    consumer: CONSUMERS.gatewayConnectionHealth.durable,
    streamSequence: 1,
    reason: 'max_deliveries',
    detail,
    deliveryCount: 10,
    failedAt: new Date().toISOString(),
    payloadEncoding: 'utf8',
    payload: JSON.stringify(health),
  };
  await bus.publish(EVENTS.deadLetter, deadLetterSubject('EVENTS', CONSUMERS.gatewayConnectionHealth.durable), envelope, { msgId: `console-test:${observedAt}` });
}

const deadLetterRows = () => page.locator('[data-testid="dead-letters"] tbody tr');

beforeAll(async () => {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: the console tests need a real browser. Install it with: apt-get install -y chromium`);
  stack = await PipelineStack.start({ name: 'console', contexts: ['directory', 'telemetry-ingest', 'fault-feed'], deadLetters: true, samsaraSimulator: { SIM_VEHICLES: '3' }, logLevel: 'warn' });
  origin = stack.gatewayUrl;
  bus = await stack.bus('console-test');
  const adapter = createSamsaraAdapter({ provider: 'samsara', baseUrl: stack.samsara.url, credentials: { apiToken: stack.samsara.apiToken } });
  const ids = (await collectPages((cursor) => adapter.vehicles(cursor), 100)).items.map((v) => v.sourceId);
  expect(ids).toHaveLength(3);
  const config = { approvedVehicleIds: ids, selectedSignals: ['odometer', 'location', 'engineHours', 'faults'] as const, optIns: { groupInventory: false, vehicleMetadata: false, extendedTelemetry: true } };
  live = await stack.connect({ provider: 'samsara', credentials: { apiToken: stack.samsara.apiToken }, config: { ...config, selectedSignals: [...config.selectedSignals] }, customerId: 'Acme Haulage' });
  const paused = await stack.connect({ provider: 'samsara', credentials: { apiToken: stack.samsara.apiToken }, config: { ...config, selectedSignals: ['odometer'] }, customerId: 'Borealis Freight' });
  pausedId = paused.connectionId;
  await new ConnectionsAdmin(stack.gateway.runtime.orm, new SecretBox(stack.masterKey)).configure(pausedId, { status: 'paused' }, PAUSE_REASON);

  // One collection of the live connection: vehicles (the directory's visibility set), latest telemetry and a day of history.
  const lifecycle = stack.orchestrator.app.get(SyncLifecycleService);
  const now = Date.now();
  const created = await lifecycle.createInternal({ connectionId: live.connectionId, purposes: ['vehicles', 'telemetryLatest', 'telemetryHistory'], startFrom: new Date(now - 86_400_000), intervalEnd: new Date(now), origin: SCHEDULED_ORIGIN });
  if (!created.created) throw new Error(`internal run not created: ${created.reason}`);
  runId = created.run.id;
  await pollUntil(async () => (await lifecycle.getInternal(runId))?.status === 'completed', { timeoutMs: 90_000, intervalMs: 250, description: `internal run ${runId} completed` });
  await pollUntil(async () => ((await live.read(`/v1/connections/${live.connectionId}/locations`)).body as { locations: unknown[] }).locations.length === 3, { timeoutMs: 30_000, description: 'three stored locations readable' });

  const credentials = new CredentialsAdmin(stack.gateway.runtime.orm);
  ({ token: operatorToken, id: operatorId } = await credentials.createOperator('console test operator'));
  consumerKey = (await credentials.createConsumerKey('not an operator')).token;
  await deadLetter(new Date(Date.now() - 60_000).toISOString(), 'the gateway database was down for every delivery');
  await deadLetter(new Date().toISOString(), 'a copy the operator discards');

  browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS });
  // bypassCSP only so axe-core can be injected (its script is not of this origin); the request log
  // below, not the CSP, is what proves no request leaves the origin.
  context = await browser.newContext({ viewport: { width: 1280, height: 900 }, bypassCSP: true });
  // Anything bound elsewhere is recorded and aborted, so the suite never depends on (or reaches) the network.
  await context.route(
    (url) => url.origin !== origin,
    (route) => {
      foreign.push(route.request().url());
      return route.abort();
    },
  );
  page = await context.newPage();
  page.on('request', (request) => requested.push(request.url()));
  page.on('pageerror', (error) => pageErrors.push(error.message));
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await stack?.close();
});

describe('the operator console in Chromium', () => {
  it('signs in with an operator credential only; the session cookie is HttpOnly and SameSite=Strict', async () => {
    await page.goto(`${origin}/console`, { waitUntil: 'load' });
    expect(new URL(page.url()).pathname).toBe('/console/sign-in');
    await expectAccessible(page);
    await page.getByLabel('Operator credential').fill(consumerKey);
    const [refused] = await Promise.all([page.waitForResponse((r) => r.request().method() === 'POST'), page.getByRole('button', { name: 'Sign in' }).click()]);
    expect(refused.status()).toBe(401);
    await expect(page.getByRole('alert').innerText()).resolves.toContain('not a valid operator credential');
    await page.getByLabel('Operator credential').fill(operatorToken);
    await Promise.all([page.waitForURL(`${origin}/console/connections`), page.getByRole('button', { name: 'Sign in' }).click()]);
    const session = (await context.cookies()).find((c) => c.name === 'switchyard-console');
    expect(session).toMatchObject({ httpOnly: true, sameSite: 'Strict', path: '/console', secure: false });
    expect(session?.value).toMatch(/^cs_/);
  });

  it('lists every connection with provider, status and reason, last success and error, signals and freshness; the paused one shows its reason', async () => {
    await visit('/console/connections', 'connections');
    const pausedRow = page.locator(`tr[data-connection="${pausedId}"]`);
    await expect(pausedRow.locator('[data-field="status"] .badge').innerText()).resolves.toBe('paused');
    await expect(pausedRow.getByTestId('status-reason').innerText()).resolves.toContain(`Reason: ${PAUSE_REASON}`);
    const liveRow = page.locator(`tr[data-connection="${live.connectionId}"]`);
    await expect(liveRow.innerText()).resolves.toMatch(/Samsara[\s\S]*active[\s\S]*odometer, location, engineHours, faults/);
    // Collected: its last success has a time; the paused one never succeeded and says so (not a zero, not a date).
    await expect(liveRow.locator('time').count()).resolves.toBeGreaterThan(0);
    await expect(pausedRow.innerText()).resolves.toContain('unknown');
    // Freshness per signal in the overview too: the live connection's location line has a status and its p95 age.
    await expect(liveRow.locator('li[data-signal="location"]').innerText()).resolves.toMatch(/^location: (available|stale)( data_age_over_bound)?, p95 age \d+ (s|min|h)$/);
  });

  it("shows a connection's runs with units by state and errors, refreshed while one is open", async () => {
    await visit(`/console/connections/${live.connectionId}`, 'connection');
    // Freshness per signal from the freshness read (issue 27): the signals and statuses an integrator
    // reads at GET /v1/connections/{id}/freshness, every figure known or unknown with its reason.
    const api = (await live.read(`/v1/connections/${live.connectionId}/freshness`)).body as ConnectionFreshnessV1;
    expect(api.signals.map((s) => s.signal)).toEqual(expect.arrayContaining(['location', 'odometer']));
    await expect(page.locator('[data-testid="freshness"] tbody tr').count()).resolves.toBe(api.signals.length);
    for (const signal of api.signals) {
      const row = page.locator(`[data-testid="freshness"] tr[data-signal="${signal.signal}"]`);
      await expect(row.locator('[data-field="status"] .badge').innerText()).resolves.toBe(signal.status);
      for (const field of ['dataAge', 'providerLag', 'pipelineLag', 'sampleInterval', 'coverage'] as const) {
        const figure = signal[field];
        const text = await row.locator(`[data-field="${field}"]`).innerText();
        if (figure.status === 'available') expect(text).toMatch(/\d/);
        else expect(text).toBe(`${figure.status === 'unsupported' ? 'not kept' : 'unknown'} (${figure.reason})`);
      }
    }
    // The three located vehicles' location age, pipeline lag and coverage are measured, not guessed.
    const location = page.locator('[data-testid="freshness"] tr[data-signal="location"]');
    await expect(location.locator('[data-field="dataAge"]').innerText()).resolves.toMatch(/^newest \d+ (s|min|h), p50 .* \(3 vehicles\)$/);
    await expect(location.locator('[data-field="pipelineLag"]').innerText()).resolves.toMatch(/^p50 \d+\.\d{3} s, p95 \d+\.\d{3} s$/);
    await expect(location.locator('[data-field="coverage"]').innerText()).resolves.toMatch(/ of 3 \(\d+ %\)$/);
    const row = page.locator(`tr[data-run="${runId}"]`);
    await expect(row.getAttribute('data-status')).resolves.toBe('completed');
    const admitted = (await stack.sql<{ n: number }>(`select admitted_units as n from $orchestrator.sync where id = ?`, [runId]))[0]!.n;
    await expect(row.locator('[data-state="receipted"]').innerText()).resolves.toBe(String(admitted));
    for (const state of ['queued', 'collecting', 'retrying', 'awaitingReceipts']) await expect(row.locator(`[data-state="${state}"]`).innerText()).resolves.toBe('0');
    // A second run started now: the page follows it without a reload until it completes.
    const lifecycle = stack.orchestrator.app.get(SyncLifecycleService);
    const second = await lifecycle.createInternal({ connectionId: live.connectionId, purposes: ['telemetryLatest'], startFrom: new Date(Date.now() - 3_600_000), intervalEnd: new Date(), origin: SCHEDULED_ORIGIN });
    if (!second.created) throw new Error(`second run not created: ${second.reason}`);
    await page.reload({ waitUntil: 'load' });
    const secondRow = page.locator(`tr[data-run="${second.run.id}"]`);
    const openAtLoad = ['requested', 'in_progress'].includes((await secondRow.getAttribute('data-status')) ?? '');
    const settled = await pollUntil(async () => {
      const run = await lifecycle.getInternal(second.run.id);
      return run?.status === 'completed' || run?.status === 'failed' ? run : undefined;
    }, { timeoutMs: 120_000, intervalMs: 250, description: `run ${second.run.id} settled` });
    expect(settled.status).toBe('completed');
    // The page follows within one refresh (3 s) — without a reload, so only console.js can have changed the row.
    await page.locator(`tr[data-run="${second.run.id}"][data-status="completed"]`).waitFor({ timeout: 15_000 });
    if (openAtLoad) await expect(page.locator('#runs').getAttribute('data-refreshed-at')).resolves.toMatch(/^\d{4}-/);
  }, 150_000);

  it('draws the fleet map from this origin only: one marker per vehicle with a stored location, over the bundled land outlines', async () => {
    await visit(`/console/connections/${live.connectionId}/map`, 'map');
    await page.locator('#fleet-map[data-basemap="loaded"]').waitFor({ timeout: 15_000 });
    const located = ((await live.read(`/v1/connections/${live.connectionId}/locations`)).body as { locations: { location: { reading: unknown } }[] }).locations.filter((l) => l.location.reading !== null);
    expect(located.length).toBe(3);
    await expect(page.locator('path.vehicle-marker').count()).resolves.toBe(located.length);
    await expect(page.locator('#fleet-map').getAttribute('data-markers')).resolves.toBe(String(located.length));
    await expect(page.locator('.leaflet-overlay-pane path').count()).resolves.toBeGreaterThan(located.length);
    await expect(page.locator('img').count()).resolves.toBe(0);
  });

  it("shows a vehicle's latest telemetry and its 7-day utilization chart", async () => {
    await page.locator('[data-testid="fleet-table"] tbody a').first().click();
    await page.waitForLoadState('networkidle');
    expect(new URL(page.url()).pathname).toMatch(new RegExp(`^/console/connections/${live.connectionId}/vehicles/vcl_`));
    await visit(new URL(page.url()).pathname, 'vehicle');
    await expect(page.getByTestId('telemetry').innerText()).resolves.toMatch(/Location\s+(available|stale)/);
    await expect(page.locator('[data-testid="utilization"] svg g').count()).resolves.toBe(7);
  });

  it('refuses a POST without the CSRF token and changes nothing', async () => {
    await visit('/console/dead-letters', 'dead-letters');
    await expect(deadLetterRows().count()).resolves.toBe(2);
    const seq = await deadLetterRows().first().getAttribute('data-seq');
    // The session cookie goes along (same origin, SameSite satisfied): only the missing token is wrong.
    const withoutToken = await page.request.post(`${origin}/console/dead-letters/${seq}/replay`, { form: {}, maxRedirects: 0 });
    expect(withoutToken.status()).toBe(403);
    const wrongToken = await page.request.post(`${origin}/console/dead-letters/${seq}/discard`, { form: { csrf: 'x'.repeat(43) }, maxRedirects: 0 });
    expect(wrongToken.status()).toBe(403);
    await page.reload({ waitUntil: 'load' });
    await expect(deadLetterRows().count()).resolves.toBe(2);
  });

  it('replays a dead letter and discards another from the page, both through the dead-letter role: they disappear, the replayed message is applied', async () => {
    const replayed = deadLetterRows().filter({ hasText: 'was down for every delivery' });
    await expect(replayed.innerText()).resolves.toMatch(/max_deliveries[\s\S]*events\.connection\.health\.[\s\S]*gateway-connection-health/);
    const replayedSeq = Number(await replayed.getAttribute('data-seq'));
    await Promise.all([page.waitForURL(/\/console\/dead-letters\?done=replayed-\d+$/), replayed.getByRole('button', { name: /^Replay dead letter/ }).click()]);
    await expect(page.getByRole('status').first().innerText()).resolves.toMatch(/replayed/);
    await expect(deadLetterRows().count()).resolves.toBe(1);
    // The replayed health observation reached the gateway's consumer: the paused connection now has a last success.
    await pollUntil(async () => (await stack.sql<{ at: string | null }>(`select last_success_at as at from $gateway.connection where id = ?::uuid`, [pausedId]))[0]?.at !== null, { timeoutMs: 15_000, description: 'replayed health applied' });

    const discarded = deadLetterRows().filter({ hasText: 'a copy the operator discards' });
    const discardedSeq = Number(await discarded.getAttribute('data-seq'));
    await Promise.all([page.waitForURL(/\/console\/dead-letters\?done=discarded-\d+$/), discarded.getByRole('button', { name: /^Discard dead letter/ }).click()]);
    await expect(page.getByRole('status').first().innerText()).resolves.toMatch(/discarded/);
    await expect(page.getByTestId('dead-letters-empty').isVisible()).resolves.toBe(true);
    await expectAccessible(page);
    // Done by the role, for this operator: its audit lines (the gateway has no right on the DLQ stream under the shipped users).
    const audit = stack.logLines.filter((l) => l.includes('"role":"dead-letters"') && /"msg":"dead letter (replay|discard)"/.test(l)).map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(audit.map((l) => [l.msg, l.seq, l.outcome, l.operatorId])).toEqual([
      ['dead letter replay', replayedSeq, 'replayed', operatorId],
      ['dead letter discard', discardedSeq, 'discarded', operatorId],
    ]);
  });

  it('asked nothing of any other origin, and raised no script error', () => {
    expect(foreign).toEqual([]);
    expect(requested.filter((url) => new URL(url).origin !== origin && !url.startsWith('data:'))).toEqual([]);
    expect(requested.some((url) => url.endsWith('/console/assets/land.geojson'))).toBe(true);
    expect(pageErrors).toEqual([]);
  });
});
