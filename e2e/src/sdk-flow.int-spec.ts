/**
 * The sandbox flow through @switchyard/sdk (issue 28) against `npm start` on the machine's
 * PostgreSQL and NATS: per sandbox connection, create a sync and wait for it, list its trips with
 * `expand=vehicle,driver` across pages, read a vehicle's telemetry, walk the fault feed to its end.
 * Every answer the SDK received (its custom fetch records them) is validated against the OpenAPI
 * document. Meanwhile the SDK as an integrator gets it — `npm pack` of libs/sdk unpacked into a
 * bare folder — runs examples/sdk/main.mjs there with plain Node ESM on the first connection; a
 * strict TypeScript file is compiled against the packed declarations.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFile } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { createClient, RETRY_STATUSES, type FetchLike } from '@switchyard/sdk';
import { createResponseValidator, expectValidResponse, loadOpenApi, pinnedNode, pollUntil, workspaceRoot } from '@switchyard/testing';
import { startSandbox, type Sandbox, type SandboxCredentials } from './sandbox-launcher.js';

const run = promisify(execFile);
const validator = createResponseValidator(loadOpenApi());

/** What a TypeScript integrator writes against the packed SDK; compiled with tsc in the pack test. */
const TYPESCRIPT_CONSUMER = `import { createClient, SwitchyardApiError, type ReasonCode, type Trip } from '@switchyard/sdk';

const client = createClient({ baseUrl: 'http://127.0.0.1:1', consumerKey: 'pt_x' });
export async function read(): Promise<Trip[]> {
  const page = await client.trips.list('c', { expand: ['vehicle', 'driver'], from: new Date() });
  for await (const trip of client.trips.list('c')) console.log(trip.startedAt);
  return page.results;
}
export function code(error: unknown): ReasonCode | undefined {
  return error instanceof SwitchyardApiError ? error.code : undefined;
}
// @ts-expect-error 'wheels' is not a documented expand value
void client.trips.list('c', { expand: ['wheels'] });
`;

type Credentials = SandboxCredentials;
interface Exchange {
  method: string;
  url: URL;
  status: number;
  contentType: string;
  body: unknown;
}

describe('the sandbox flow through @switchyard/sdk', () => {
  let sandbox: Sandbox | undefined;
  let app: string;
  let credentials: Credentials;

  beforeAll(async () => {
    sandbox = await startSandbox('sdk');
    credentials = sandbox.credentials;
    // The SDK as an integrator gets it: the tarball of `npm pack`, unpacked into a bare folder.
    app = mkdtempSync(path.join(tmpdir(), 'sy-sdk-app-'));
    await run('npm', ['pack', '--pack-destination', app], { cwd: path.join(workspaceRoot(), 'libs/sdk') });
    const tarball = readdirSync(app).find((f) => f.endsWith('.tgz')) ?? 'no tarball';
    const target = path.join(app, 'node_modules/@switchyard/sdk');
    mkdirSync(target, { recursive: true });
    await run('tar', ['-xzf', path.join(app, tarball), '-C', target, '--strip-components=1']);
    copyFileSync(path.join(workspaceRoot(), 'examples/sdk/main.mjs'), path.join(app, 'main.mjs'));
  }, 90_000);

  afterAll(async () => {
    try {
      await sandbox?.stop();
    } finally {
      if (app) rmSync(app, { recursive: true, force: true });
    }
  }, 60_000);

  it('creates a sync per connection, waits for it, lists trips expanded, reads telemetry and walks the fault feed (and examples/sdk/main.mjs from the tarball)', async () => {
    // The example (plain Node ESM, the packed SDK) runs the flow on the first connection meanwhile.
    // A failed run shows what the example printed (its steps, then the error) instead of only its exit.
    const example = run(pinnedNode(), ['main.mjs', sandbox?.credentialsFile ?? ''], { cwd: app, timeout: 130_000 }).catch((error: { stdout?: string; stderr?: string; message: string }) => {
      throw new Error(`examples/sdk/main.mjs failed: ${error.message}\nstdout: ${error.stdout ?? ''}\nstderr: ${error.stderr ?? ''}`);
    });
    const exchanges: Exchange[] = [];
    // The custom fetch option: every answer the SDK gets is kept for validation against the document.
    const recording: FetchLike = async (input, init) => {
      const response = await fetch(input, init);
      const text = await response.clone().text();
      exchanges.push({ method: init.method ?? 'GET', url: new URL(input), status: response.status, contentType: response.headers.get('content-type') ?? '', body: text ? (JSON.parse(text) as unknown) : undefined });
      return response;
    };
    // The other connections side by side, each waiting for its own sync: the first is the example's,
    // and a second sync of one connection would wait for the scheduler.
    const connections = credentials.connections.slice(1);
    expect(connections.length).toBeGreaterThanOrEqual(2);
    await Promise.all(
      connections.map(async (connection) => {
        const client = createClient({ baseUrl: credentials.baseUrl, consumerKey: credentials.consumerKey, applicationSecret: credentials.applicationSecret, connectionToken: connection.connectionToken, fetch: recording });

        const created = await client.syncs.create();
        expect(created.status).toBe('requested');
        const finished = await pollUntil(
          async () => {
            const sync = await client.syncs.get(created.id);
            return sync.status === 'completed' || sync.status === 'failed' ? sync : undefined;
          },
          { timeoutMs: 60_000, intervalMs: 250, description: `${connection.provider} sync ${created.id} finished` },
        );
        expect({ provider: connection.provider, status: finished.status, failureReason: finished.failureReason }).toEqual({ provider: connection.provider, status: 'completed', failureReason: undefined });

        const trips = [];
        for await (const trip of client.trips.list(connection.id, { expand: ['vehicle', 'driver'], limit: 5 })) trips.push(trip);
        // An expanded vehicle is an object; the id string stays only for a vehicle not stored yet.
        for (const trip of trips) if (typeof trip.vehicle !== 'string') expect(trip.vehicle.id).toMatch(/^vcl_/);

        const roster = await client.vehicles.list(connection.id, { limit: 1 });
        const first = 'vehicles' in roster ? roster.vehicles[0] : roster.results[0];
        expect({ provider: connection.provider, rosterHasAVehicle: first !== undefined }).toEqual({ provider: connection.provider, rosterHasAVehicle: true });
        const telemetry = await client.vehicles.telemetry(connection.id, first!.id);
        expect(telemetry.vehicleId).toBe(first!.id);

        let feedPages = 0;
        for await (const page of client.faults.events(connection.id, { limit: 100 }).pages()) {
          feedPages++;
          expect(page.nextCursor).toEqual(expect.any(String));
        }
        expect(feedPages).toBeGreaterThanOrEqual(1);
      }),
    );

    const tripRequests = exchanges.filter((e) => e.url.pathname.endsWith('/trips'));
    expect(tripRequests.length).toBeGreaterThanOrEqual(connections.length);
    for (const e of tripRequests) expect(e.url.search).toMatch(/^\?expand=vehicle,driver&limit=5(&cursor=[^&]+)?$/);
    // Every answer is one the document describes; any besides success is one the SDK retried (a loaded machine may answer 503 + Retry-After).
    for (const e of exchanges) expectValidResponse(validator, { method: e.method, path: e.url.pathname, status: e.status, body: e.body, contentType: e.contentType });
    expect(exchanges.filter((e) => e.status !== (e.method === 'POST' ? 201 : 200) && !RETRY_STATUSES.has(e.status)).map((e) => `${e.method} ${e.url.pathname} ${e.status}`)).toEqual([]);

    const { stdout } = await example;
    const steps = stdout.trim().split('\n').map((line) => JSON.parse(line) as { step: string; status?: string });
    expect(steps.map((s) => s.step)).toEqual(['sync created', 'sync finished', 'trips', 'telemetry', 'fault feed']);
    expect(steps[1]?.status).toBe('completed');
  }, 150_000);

  it('packs with npm pack into compiled JavaScript and declarations that type-check for a strict TypeScript consumer', async () => {
    const target = path.join(app, 'node_modules/@switchyard/sdk');
    const files = readdirSync(target, { recursive: true }) as string[];
    expect(files).toEqual(expect.arrayContaining(['package.json', 'README.md', 'dist/index.js', 'dist/index.d.ts', 'dist/generated/openapi.d.ts']));
    expect(files.filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts'))).toEqual([]);
    // Compiled against the packed declarations alone (strict, nodenext): typed pages and items, the
    // ReasonCode union, and an undocumented expand value refused (the @ts-expect-error must be used).
    writeFileSync(path.join(app, 'check.ts'), TYPESCRIPT_CONSUMER);
    const tsc = path.join(workspaceRoot(), 'node_modules/typescript/bin/tsc');
    const typeRoots = path.join(workspaceRoot(), 'node_modules/@types');
    await run(pinnedNode(), [tsc, '--noEmit', '--strict', '--module', 'nodenext', '--moduleResolution', 'nodenext', '--target', 'es2023', '--types', 'node', '--typeRoots', typeRoots, 'check.ts'], { cwd: app }).catch((error: { stdout?: string }) => {
      throw new Error(`the packed SDK does not type-check for a TypeScript consumer:\n${error.stdout ?? String(error)}`);
    });
  }, 60_000);
});
