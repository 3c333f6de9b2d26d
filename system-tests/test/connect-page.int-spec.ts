/**
 * The connect page in a real browser (issue 13; decision 0022): Chromium (playwright-core, headless,
 * --no-sandbox) walks each enrollment method of each provider to `complete` against the simulators
 * (spawned from `sandbox/dist`, reached by the provider adapters over real HTTP), and the failure
 * paths: wrong credentials, expired link, declined, reuse of a consumed link, no signal selected, a
 * forged CSRF token. Screenshots at desktop and phone widths go to `system-tests/screenshots/`
 * (gitignored); axe-core, injected into the page, must report no serious or critical violation.
 * After each enrollment: no provider secret in clear anywhere in the gateway's schema, and none in
 * the log lines captured while it ran.
 *
 * A missing Chromium fails the suite with the command that installs it (CI installs it); it never
 * passes silently.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { bearer, startTestGateway, type TestGateway } from '@switchyard/gateway/testing';
import { query, tableNamer } from '@switchyard/persistence';
import { SIMULATOR_OAUTH_CLIENT, SIMULATOR_OAUTH_PATHS, spawnSimulator, type NodeProcess } from '@switchyard/testing';

const CHROMIUM = '/usr/bin/chromium';
const ARGS = ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-quic'];
const SCREENSHOTS = path.join(import.meta.dirname, '..', 'screenshots');
const AXE = createRequire(import.meta.url).resolve('axe-core/axe.min.js');

const samsaraToken = `samsara_live_${randomBytes(16).toString('hex')}`;
const geotabPassword = `Gt-${randomBytes(12).toString('hex')}`;
const GEOTAB = { database: 'acme_fleet', userName: 'svc-acme@switchyard.example' };

let gw: TestGateway;
let browser: Browser;
const simulators: NodeProcess[] = [];
let urls: { samsara: string; geotab: string; motive: string };
const motiveKey = `motive_key_${randomBytes(16).toString('hex')}`;
let manager: { token: string; id: string };

const em = () => gw.service.runtime.orm.em.fork();
const sql = <T>(text: (t: (name: string) => string) => string, params: unknown[] = []) => query<T>(em(), text(tableNamer(em())), params);

async function pausedConnection(provider: 'samsara' | 'geotab' | 'motive'): Promise<string> {
  const { connectionId } = await gw.connections.create({ customerId: `Acme ${provider} Logistics`, provider, environment: 'sandbox' });
  await gw.connections.configure(connectionId, { status: 'paused' });
  await gw.credentials.grantConsumer(manager.id, connectionId, ['read', 'manage']);
  if (provider === 'geotab') await gw.connections.bindGeotab(connectionId, GEOTAB.database, urls.geotab);
  return connectionId;
}

async function newSession(connectionId: string): Promise<{ sessionId: string; url: string }> {
  const res = await gw.call('POST', `/v1/connections/${connectionId}/connect-sessions`, { headers: bearer(manager.token) });
  expect(res.status).toBe(200);
  return res.body as { sessionId: string; url: string };
}

async function sessionStatus(connectionId: string, sessionId: string): Promise<Record<string, unknown>> {
  const res = await gw.call('GET', `/v1/connections/${connectionId}/connect-sessions/${sessionId}`, { headers: bearer(manager.token) });
  expect(res.status).toBe(200);
  return res.body as Record<string, unknown>;
}

/** A page whose every request stays on this machine (anything else is aborted and recorded). */
async function openPage(options: { width: number; height: number; bypassCSP?: boolean } = { width: 1280, height: 900 }): Promise<{ context: BrowserContext; page: Page; foreign: string[] }> {
  const context = await browser.newContext({ viewport: { width: options.width, height: options.height }, bypassCSP: options.bypassCSP ?? false });
  const foreign: string[] = [];
  await context.route(
    (url) => url.hostname !== '127.0.0.1',
    (route) => {
      foreign.push(route.request().url());
      return route.abort();
    },
  );
  return { context, page: await context.newPage(), foreign };
}

async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  const file = path.join(SCREENSHOTS, `${name}.png`);
  await page.screenshot({ path: file, fullPage: true });
  expect(statSync(file).size).toBeGreaterThan(5_000);
}

/** axe-core in the page (the context bypasses the page's CSP only to inject it): no serious or critical violation. */
async function expectAccessible(page: Page): Promise<void> {
  await page.addScriptTag({ path: AXE });
  const violations = await page.evaluate(async () => {
    const axe = (globalThis as unknown as { axe: { run(): Promise<{ violations: { id: string; impact: string | null; nodes: unknown[] }[] }> } }).axe;
    const result = await axe.run();
    return result.violations.map((v) => ({ id: v.id, impact: v.impact, nodes: v.nodes.length }));
  });
  expect(violations.filter((v) => v.impact === 'serious' || v.impact === 'critical')).toEqual([]);
}

/** Every text column of every gateway table, and the captured logs: no secret in clear. */
async function expectNoSecretInClear(secrets: readonly string[]): Promise<void> {
  const schema = gw.schemas.gateway;
  const tables = await sql<{ table_name: string }>(() => `select table_name from information_schema.tables where table_schema = ?`, [schema]);
  expect(tables.length).toBeGreaterThan(5);
  for (const { table_name } of tables) {
    const rows = await sql<{ dump: string }>(() => `select coalesce(string_agg(t::text, E'\\n'), '') as dump from "${schema}"."${table_name}" t`);
    for (const secret of secrets) expect({ table: table_name, leaked: rows[0]!.dump.includes(secret) }).toEqual({ table: table_name, leaked: false });
  }
  const logs = gw.logText();
  expect(logs.length).toBeGreaterThan(0);
  for (const secret of secrets) expect(logs.includes(secret)).toBe(false);
}

async function fillAndSubmit(page: Page, signals: readonly string[], fields: Record<string, string>, accept = true): Promise<void> {
  for (const s of signals) await page.getByRole('checkbox', { name: new RegExp(`^${s}`, 'i') }).check();
  // Samsara offers the API token and OAuth: choose the token (a single method has no choice to make).
  const tokenMethod = page.getByRole('radio', { name: 'Enter an API token' });
  if ('API token' in fields && (await tokenMethod.count()) > 0) await tokenMethod.check();
  for (const [label, value] of Object.entries(fields)) await page.getByLabel(label, { exact: true }).fill(value);
  if (accept) await page.getByRole('checkbox', { name: /I have read what will be shared/ }).check();
  await posted(page, () => page.getByRole('button', { name: 'Connect account' }).click());
}

/** Runs `act`, which submits the form, and waits until the answer page has loaded. */
async function posted(page: Page, act: () => Promise<void>): Promise<number> {
  const [response] = await Promise.all([page.waitForResponse((r) => r.request().method() === 'POST'), act()]);
  await page.waitForLoadState('load');
  return response.status();
}

beforeAll(async () => {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: the connect page tests need a real browser. Install it with: apt-get install -y chromium`);
  const samsara = await spawnSimulator('samsara', { SAMSARA_API_TOKENS: samsaraToken, SIM_VEHICLES: '2', SIM_SEED: 'connect-page' });
  simulators.push(samsara.process);
  const geotab = await spawnSimulator('geotab', { GEOTAB_DATABASE: GEOTAB.database, GEOTAB_USERNAME: GEOTAB.userName, GEOTAB_PASSWORD: geotabPassword, SIM_VEHICLES: '2', SIM_SEED: 'connect-page' });
  simulators.push(geotab.process);
  const motive = await spawnSimulator('motive', { MOTIVE_API_KEYS: motiveKey, SIM_VEHICLES: '2', SIM_SEED: 'connect-page' });
  simulators.push(motive.process);
  urls = { samsara: samsara.url, geotab: geotab.url, motive: motive.url };
  gw = await startTestGateway({
    providerBaseUrls: urls,
    oauth: {
      samsara: { ...SIMULATOR_OAUTH_CLIENT, authorizeUrl: `${urls.samsara}${SIMULATOR_OAUTH_PATHS.samsara.authorize}`, tokenUrl: `${urls.samsara}${SIMULATOR_OAUTH_PATHS.samsara.token}` },
      motive: { ...SIMULATOR_OAUTH_CLIENT, authorizeUrl: `${urls.motive}${SIMULATOR_OAUTH_PATHS.motive.authorize}`, tokenUrl: `${urls.motive}${SIMULATOR_OAUTH_PATHS.motive.token}` },
    },
  });
  const key = await gw.credentials.createConsumerKey('connect page manager');
  manager = { token: key.token, id: key.id };
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS });
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await gw?.close();
  for (const sim of simulators) await sim.kill();
});

describe('enrollment to complete', () => {
  it('Samsara API token: the page (desktop and phone, accessible) → complete; selection and identity recorded, connection paused with activation pending; the secret nowhere in clear; the used link is dead', async () => {
    const connectionId = await pausedConnection('samsara');
    const { sessionId, url } = await newSession(connectionId);
    const phone = await openPage({ width: 390, height: 844, bypassCSP: true });
    try {
      expect((await phone.page.goto(url))?.status()).toBe(200);
      await screenshot(phone.page, 'connect-samsara-phone');
      await expectAccessible(phone.page);
    } finally {
      await phone.context.close();
    }
    const { context, page, foreign } = await openPage();
    try {
      expect((await page.goto(url))?.status()).toBe(200);
      await expect(page.getByRole('heading', { level: 1 }).innerText()).resolves.toBe('Connect your Samsara account');
      await expect(page.locator('body').innerText()).resolves.toContain('Acme samsara Logistics');
      // Who asks: the name of the consumer key that created the link.
      await expect(page.getByRole('region', { name: 'Who is asking' }).innerText()).resolves.toContain('connect page manager');
      // Driver data is never offered: exactly the four signals.
      await expect(page.locator('input[name="signals"]').evaluateAll((els) => els.map((e) => (e as unknown as { value: string }).value))).resolves.toEqual(['odometer', 'faults', 'engineHours', 'location']);
      await screenshot(page, 'connect-samsara-desktop');
      await fillAndSubmit(page, ['odometer', 'location'], { 'API token': samsaraToken });
      await expect(page.getByRole('heading', { level: 1 }).innerText()).resolves.toBe('Account connected');
      await screenshot(page, 'connect-samsara-complete');
      expect(await page.content()).not.toContain(samsaraToken);
      expect(foreign).toEqual([]);

      const status = await sessionStatus(connectionId, sessionId);
      expect(status).toMatchObject({ status: 'complete', enrollment_method: 'api_token', selected_signals: ['odometer', 'location'] });
      expect(status.disclosure_version).toMatch(/^\d{4}-\d{2}-\d{2}\.\d+$/);
      expect(Date.parse(status.completed_at as string)).toBeGreaterThanOrEqual(Date.parse(status.accepted_at as string));
      const [identity] = await sql<{ provider_identity: string }>((t) => `select provider_identity from ${t('connect_session')} where id = ?::uuid`, [sessionId]);
      expect(identity!.provider_identity).toMatch(/^samsara:token:[0-9a-f]{16}$/);
      const config = await gw.connections.get(connectionId);
      expect(config).toMatchObject({ status: 'paused', selectedSignals: ['odometer', 'location'] });
      expect(await gw.connections.providerCredentials(connectionId)).toEqual({ apiToken: samsaraToken });
      // The completion announced the approved selection to the contexts (still paused) through the outbox.
      const [event] = await sql<{ payload: { status: string; selectedSignals: string[] } }>((t) => `select payload from ${t('outbox')} where subject like ? order by id desc limit 1`, [`%${connectionId}`]);
      expect(event!.payload).toMatchObject({ status: 'paused', selectedSignals: ['odometer', 'location'] });
      // Collection stays disabled until the activation policy is installed (spec 3 session rule 3).
      await expect(gw.connections.configure(connectionId, { status: 'active' })).rejects.toThrow(/activation_policy_required/);
      await expectNoSecretInClear([samsaraToken]);

      // Reuse of a consumed link.
      expect((await page.goto(url))?.status()).toBe(410);
      await expect(page.getByRole('heading', { level: 1 }).innerText()).resolves.toBe('Link already used');
    } finally {
      await context.close();
    }
  });

  it('Geotab service account → complete against the operator-approved database and server', async () => {
    const connectionId = await pausedConnection('geotab');
    const { sessionId, url } = await newSession(connectionId);
    const { context, page } = await openPage({ width: 1280, height: 900, bypassCSP: true });
    try {
      await page.goto(url);
      await expectAccessible(page);
      await expect(page.getByLabel('Database', { exact: true }).inputValue()).resolves.toBe(GEOTAB.database);
      await screenshot(page, 'connect-geotab-desktop');
      await fillAndSubmit(page, ['fault', 'engine runtime'], { 'User name': GEOTAB.userName, Password: geotabPassword });
      await expect(page.getByRole('heading', { level: 1 }).innerText()).resolves.toBe('Account connected');
      expect(await page.content()).not.toContain(geotabPassword);
      expect(await sessionStatus(connectionId, sessionId)).toMatchObject({ status: 'complete', enrollment_method: 'service_account', selected_signals: ['faults', 'engineHours'] });
      expect(await gw.connections.providerCredentials(connectionId)).toEqual({ database: GEOTAB.database, userName: GEOTAB.userName, password: geotabPassword });
      await expectNoSecretInClear([geotabPassword]);
    } finally {
      await context.close();
    }
  });
});

describe('OAuth (provider-hosted authorize and token endpoints of the simulators)', () => {
  it.each([
    ['samsara', 'Sign in with the provider (OAuth)', 'apiToken', samsaraToken],
    ['motive', undefined, 'accessToken', motiveKey],
  ] as const)('%s: approve at the provider → back to the gateway → complete with the tokens from the code exchange', async (provider, radio, tokenKey, accountCredential) => {
    const connectionId = await pausedConnection(provider);
    const { sessionId, url } = await newSession(connectionId);
    const { context, page, foreign } = await openPage({ width: 1280, height: 900, bypassCSP: true });
    try {
      await page.goto(url);
      await expectAccessible(page);
      await screenshot(page, `connect-${provider}-oauth-desktop`);
      if (radio) await page.getByRole('radio', { name: radio }).check();
      await page.getByRole('checkbox', { name: /^Odometer/ }).check();
      await page.getByRole('checkbox', { name: /^Fault codes/ }).check();
      await page.getByRole('checkbox', { name: /I have read/ }).check();
      await page.getByRole('button', { name: provider === 'motive' ? 'Continue to Motive' : 'Connect account' }).click();
      await page.waitForURL((u) => u.pathname.includes('/oauth'));
      expect(page.url().startsWith(urls[provider])).toBe(true);
      await page.getByRole('button', { name: 'Approve' }).click();
      await page.getByRole('heading', { name: 'Account connected' }).waitFor();
      expect(page.url()).toContain('/connect/oauth/callback');
      expect(await sessionStatus(connectionId, sessionId)).toMatchObject({ status: 'complete', enrollment_method: 'oauth', selected_signals: ['odometer', 'faults'] });
      // The simulator's opaque access token (not the account's own credential) and its refresh token are sealed.
      const stored = (await gw.connections.providerCredentials(connectionId)) as Record<string, string>;
      expect(stored).toMatchObject({ [tokenKey]: expect.stringMatching(/^sim_oauth_[A-Za-z0-9_-]{43}$/), refreshToken: expect.stringMatching(/^[A-Za-z0-9_-]{32,}$/) });
      const secrets = [stored[tokenKey]!, stored['refreshToken']!, accountCredential];
      const content = await page.content();
      for (const secret of secrets) expect(content).not.toContain(secret);
      const [identity] = await sql<{ provider_identity: string }>((t) => `select provider_identity from ${t('connect_session')} where id = ?::uuid`, [sessionId]);
      expect(identity!.provider_identity).toMatch(new RegExp(`^${provider}:oauth:[0-9a-f]{16}$`));
      expect(foreign).toEqual([]);
      await expectNoSecretInClear(secrets);
      // The callback is single use too.
      expect((await page.goto(page.url()))?.status()).toBe(410);
    } finally {
      await context.close();
    }
  });

  it('declined at the provider: cancelled, nothing stored', async () => {
    const connectionId = await pausedConnection('motive');
    const { sessionId, url } = await newSession(connectionId);
    const { context, page } = await openPage();
    try {
      await page.goto(url);
      await page.getByRole('checkbox', { name: /^Location/ }).check();
      await page.getByRole('checkbox', { name: /I have read/ }).check();
      await page.getByRole('button', { name: 'Continue to Motive' }).click();
      await page.getByRole('button', { name: 'Deny' }).click();
      await page.getByRole('heading', { name: 'Request declined' }).waitFor();
      expect(await sessionStatus(connectionId, sessionId)).toMatchObject({ status: 'cancelled', completed_at: null });
      expect(await gw.connections.providerCredentials(connectionId)).toBeUndefined();
    } finally {
      await context.close();
    }
  });
});

describe('failure paths', () => {
  it('wrong credentials: the provider refuses, the session fails, nothing is stored, the wrong value is not shown back', async () => {
    const connectionId = await pausedConnection('samsara');
    const { sessionId, url } = await newSession(connectionId);
    const { context, page } = await openPage();
    try {
      await page.goto(url);
      await fillAndSubmit(page, ['odometer'], { 'API token': 'wrong-token-value-123' });
      await expect(page.getByRole('heading', { level: 1 }).innerText()).resolves.toBe('Connection failed');
      await expect(page.locator('body').innerText()).resolves.toContain('did not accept these credentials');
      expect(await page.content()).not.toContain('wrong-token-value-123');
      expect(await sessionStatus(connectionId, sessionId)).toMatchObject({ status: 'failed', completed_at: null });
      expect(await gw.connections.providerCredentials(connectionId)).toBeUndefined();
      expect(gw.logText()).not.toContain('wrong-token-value-123');
    } finally {
      await context.close();
    }
  });

  it('no signal selected: the form says so, focusable from the error summary, and nothing is consumed; then it completes', async () => {
    const connectionId = await pausedConnection('samsara');
    const { sessionId, url } = await newSession(connectionId);
    const { context, page } = await openPage({ width: 390, height: 844, bypassCSP: true });
    try {
      await page.goto(url);
      await fillAndSubmit(page, [], { 'API token': samsaraToken });
      const alert = page.getByRole('alert');
      await expect(alert.innerText()).resolves.toContain('Choose at least one signal to share.');
      await expectAccessible(page);
      await screenshot(page, 'connect-samsara-phone-errors');
      // The secret typed before is not rendered back into the form.
      expect(await page.content()).not.toContain(samsaraToken);
      expect(await sessionStatus(connectionId, sessionId)).toMatchObject({ status: 'started' });
      // Keyboard only: the summary link moves focus to the first signal, Space ticks it.
      await alert.getByRole('link').first().focus();
      await page.keyboard.press('Enter');
      await page.getByRole('checkbox', { name: /^Odometer/ }).focus();
      await page.keyboard.press('Space');
      await page.getByLabel('API token', { exact: true }).fill(samsaraToken);
      await page.getByRole('checkbox', { name: /I have read/ }).check();
      await page.getByRole('button', { name: 'Connect account' }).focus();
      expect(await posted(page, () => page.keyboard.press('Enter'))).toBe(200);
      await expect(page.getByRole('heading', { level: 1 }).innerText()).resolves.toBe('Account connected');
    } finally {
      await context.close();
    }
  });

  it('declined: cancelled, and the link is dead', async () => {
    const connectionId = await pausedConnection('samsara');
    const { sessionId, url } = await newSession(connectionId);
    const { context, page } = await openPage();
    try {
      await page.goto(url);
      await posted(page, () => page.getByRole('button', { name: 'Decline' }).click());
      await expect(page.getByRole('heading', { level: 1 }).innerText()).resolves.toBe('Request declined');
      expect(await sessionStatus(connectionId, sessionId)).toMatchObject({ status: 'cancelled' });
      expect((await page.goto(url))?.status()).toBe(410);
    } finally {
      await context.close();
    }
  });

  it('expired link: dead on open, and a form opened before expiry is refused after it', async () => {
    const connectionId = await pausedConnection('samsara');
    const first = await newSession(connectionId);
    const second = await newSession(connectionId);
    const age = (id: string) => sql((t) => `update ${t('connect_session')} set created_at = created_at - interval '11 minutes', expires_at = expires_at - interval '11 minutes' where id = ?::uuid`, [id]);
    const { context, page } = await openPage();
    try {
      await age(first.sessionId);
      expect((await page.goto(first.url))?.status()).toBe(410);
      await expect(page.getByRole('heading', { level: 1 }).innerText()).resolves.toBe('Link expired');
      expect(await sessionStatus(connectionId, first.sessionId)).toMatchObject({ status: 'expired' });

      await page.goto(second.url);
      await age(second.sessionId);
      await fillAndSubmit(page, ['odometer'], { 'API token': samsaraToken });
      await expect(page.getByRole('heading', { level: 1 }).innerText()).resolves.toBe('Link expired');
      expect(await sessionStatus(connectionId, second.sessionId)).toMatchObject({ status: 'expired', completed_at: null });
      expect(await gw.connections.providerCredentials(connectionId)).toBeUndefined();
    } finally {
      await context.close();
    }
  });

  it('single use under concurrency: six submits of one form at once — one completes, the others are told the link was used', async () => {
    const connectionId = await pausedConnection('samsara');
    const { sessionId, url } = await newSession(connectionId);
    const csrf = /name="csrf" value="([^"]+)"/.exec(await (await fetch(url)).text())?.[1] ?? '';
    const body = new URLSearchParams({ csrf, method: 'api_token', apiToken: samsaraToken, accept: 'yes', action: 'connect' });
    body.append('signals', 'odometer');
    const submit = () => fetch(url, { method: 'POST', body, headers: { 'content-type': 'application/x-www-form-urlencoded' } }).then(async (r) => ({ status: r.status, text: await r.text() }));
    const answers = await Promise.all(Array.from({ length: 6 }, submit));
    expect(answers.map((a) => a.status).sort()).toEqual([200, 410, 410, 410, 410, 410]);
    expect(answers.find((a) => a.status === 200)?.text).toContain('Account connected');
    expect(answers.find((a) => a.status === 410)?.text).toContain('Link already used');
    expect(await sessionStatus(connectionId, sessionId)).toMatchObject({ status: 'complete' });
  });

  it('a forged CSRF token is refused (403) and changes nothing', async () => {
    const connectionId = await pausedConnection('samsara');
    const { sessionId, url } = await newSession(connectionId);
    const { context, page } = await openPage();
    try {
      await page.goto(url);
      await page.locator('input[name="csrf"]').evaluate((el) => ((el as unknown as { value: string }).value = 'forged-token'));
      await page.getByRole('checkbox', { name: /^Odometer/ }).check();
      await page.getByLabel('API token', { exact: true }).fill(samsaraToken);
      await page.getByRole('checkbox', { name: /I have read/ }).check();
      expect(await posted(page, () => page.getByRole('button', { name: 'Connect account' }).click())).toBe(403);
      await expect(page.getByRole('heading', { level: 1 }).innerText()).resolves.toBe('Form not accepted');
      expect(await sessionStatus(connectionId, sessionId)).toMatchObject({ status: 'started' });
      expect(await gw.connections.providerCredentials(connectionId)).toBeUndefined();
    } finally {
      await context.close();
    }
  });
});
