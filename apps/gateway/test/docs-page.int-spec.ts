/**
 * The API reference page in a real browser: Chromium (driven by playwright-core) opens /docs,
 * Swagger UI renders the committed document, and not one request leaves this machine — the page
 * must work offline and must not leak a reader's visit to a CDN. A missing browser is a failure
 * that says how to install it, never a silent skip (CI installs it).
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { existsSync, mkdtempSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { startTestGateway, type TestGateway } from './support.js';

const CHROMIUM = '/usr/bin/chromium';
/** A public-looking host name mapped to 127.0.0.1: Swagger UI treats localhost specially (e.g. its validator badge). */
const PUBLIC_HOST = 'api.switchyard.test';
const ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-quic',
  `--host-resolver-rules=MAP ${PUBLIC_HOST} 127.0.0.1`,
];

let gw: TestGateway;
let browser: Browser | undefined;

beforeAll(async () => {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: the docs page test needs a real browser. Install it with: apt-get install -y chromium`);
  gw = await startTestGateway();
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS });
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await gw?.close();
});

describe('/docs in Chromium', () => {
  it.each([
    ['127.0.0.1', '/docs'],
    ['127.0.0.1', '/docs/'],
    [PUBLIC_HOST, '/docs'],
    [PUBLIC_HOST, '/docs?url=https://example.com/evil.json'],
  ])('%s%s renders every operation from this server only', async (host, docsPath) => {
    const origin = gw.url.replace('127.0.0.1', host);
    const context = await browser!.newContext({ viewport: { width: 1280, height: 1400 } });
    // Anything bound elsewhere is recorded (below) and aborted, so the test never depends on the network.
    await context.route((url) => url.origin !== origin, (route) => route.abort());
    const page = await context.newPage();
    const requested: string[] = [];
    const failed: string[] = [];
    page.on('request', (request) => requested.push(request.url()));
    page.on('requestfailed', (request) => failed.push(`${request.url()} ${request.failure()?.errorText ?? ''}`));
    const pageErrors: string[] = [];
    page.on('pageerror', (error) => pageErrors.push(error.message));
    try {
      const response = await page.goto(`${origin}${docsPath}`, { waitUntil: 'networkidle' });
      expect(response?.status()).toBe(200);
      await page.locator('.swagger-ui .opblock').first().waitFor({ timeout: 15_000 });

      expect(await page.title()).toBe('Switchyard API reference');
      await expect(page.locator('.swagger-ui .info .title').innerText()).resolves.toContain('Switchyard fleet telematics API');
      const operations = (await page.locator('.opblock-summary').allInnerTexts()).map((text) => text.replace(/\s+/g, ' ').trim());
      for (const [method, route] of [
        ['GET', '/v1/catalog'],
        ['GET', '/v1/connections/{id}'],
        ['GET', '/v1/connections/{id}/capabilities'],
      ]) {
        expect(operations.some((o) => o.startsWith(`${method} ${route}`) || o.startsWith(`${method}${route}`))).toBe(true);
      }
      // The committed document is what renders (it is embedded in swagger-ui-init.js, not fetched).
      await expect(page.locator('.swagger-ui .info .version').first().innerText()).resolves.toContain('1.16.0');

      const shot = path.join(mkdtempSync(path.join(tmpdir(), 'switchyard-docs-')), 'docs.png');
      await page.screenshot({ path: shot, fullPage: false });
      expect(statSync(shot).size).toBeGreaterThan(10_000);
      console.info(`docs page screenshot: ${shot}`);

      const foreign = requested.filter((url) => !url.startsWith(`${origin}/`) && !url.startsWith('data:'));
      expect(foreign).toEqual([]);
      expect(failed).toEqual([]);
      expect(pageErrors).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
