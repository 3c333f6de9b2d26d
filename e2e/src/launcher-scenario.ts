/**
 * `npm start` as a user meets it, black box: the built launcher (`launcher/dist/start.js`) on the
 * pinned Node, talked to only through its output, its credentials file, HTTP (with the real `curl`)
 * and signals. One scenario = first start (try-it block, one line naming the database and the bus,
 * credentials file 0600 with the documented shape, every printed curl line answering 200 with a
 * body the OpenAPI document accepts (a locations and a telemetry line among them; every connection's
 * first collection stored a location within a minute), the printed metrics URL on its own port counting those
 * requests while the API's port has no /metrics), the printed operator step run as printed finding
 * this start's connection (heard by a webhook endpoint as connection.paused and connection.resumed:
 * the delivery role runs too), SIGINT → exit 0, then a restart on the same data
 * directory that reuses the same credentials. Each infrastructure variant (local servers,
 * embedded) runs it.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { assertBuilt, createResponseValidator, expectValidResponse, freePort, freePortRange, loadOpenApi, pollUntil, spawnNode, startWebhookReceiver, workspaceProjects, workspaceRoot, type NodeProcess } from '@switchyard/testing';

const run = promisify(execFile);
const validator = createResponseValidator(loadOpenApi());
const STATUS_MARK = '__curl_status';

export interface ScenarioSetup {
  /** Environment of both starts, besides PORT and SWITCHYARD_DATA_DIR (set by the scenario). */
  env: Record<string, string>;
  /** What the one "using database: …; bus: …" line must say. */
  usingLine: (dataDir: string) => RegExp;
  /** Drops whatever setup created (databases, streams); runs after the processes are gone. */
  cleanup(): Promise<void>;
}

interface Credentials {
  baseUrl: string;
  applicationSecret: string;
  consumerKey: string;
  operatorCredential: string;
  connections: { id: string; provider: string; connectionToken: string }[];
  simulators: {
    samsara: { baseUrl: string; apiToken: string };
    motive: { baseUrl: string; apiKey: string };
    geotab: { baseUrl: string; database: string; userName: string; password: string };
  };
}

/**
 * A start waits up to 40 s for the try-it block (which itself waits up to 15 s for the grants to
 * reach the orchestrator), then runs every curl line: a test that starts the launcher gets more
 * than jest's 30 s default, so a slow start under CI load fails with the launcher's output rather
 * than a bare jest timeout.
 */
const START_TEST_MS = 180_000;

async function start(env: Record<string, string>): Promise<{ proc: NodeProcess; block: string }> {
  const proc = spawnNode(launcherEntry, { env });
  running.push(proc);
  const [block] = await proc.waitForOutput(/┌ Switchyard sandbox is up[\s\S]*?\n└/, 40_000);
  return { proc, block };
}

function usingLineOf(output: string): string {
  const lines = output
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as { msg?: string })
    .filter((entry) => entry.msg?.startsWith('using database: '));
  expect(lines).toHaveLength(1);
  return lines[0]?.msg ?? '';
}

function readCredentials(file: string): Credentials {
  expect(statSync(file).mode & 0o777).toBe(0o600);
  const credentials = JSON.parse(readFileSync(file, 'utf8')) as Credentials;
  expect(Object.keys(credentials).sort()).toEqual(['applicationSecret', 'baseUrl', 'connections', 'consumerKey', 'operatorCredential', 'simulators']);
  expect(credentials.operatorCredential).toMatch(/^op_[A-Za-z0-9]+$/);
  expect(credentials.applicationSecret).toMatch(/^sk_sandbox_[A-Za-z0-9]+$/);
  expect(credentials.consumerKey).toMatch(/^pt_[A-Za-z0-9]+$/);
  expect(credentials.connections.map((c) => c.provider).sort()).toEqual(['geotab', 'motive', 'samsara']);
  for (const connection of credentials.connections) {
    expect(Object.keys(connection).sort()).toEqual(['connectionToken', 'id', 'provider']);
    expect(connection.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(connection.connectionToken).toMatch(/^ct_[A-Za-z0-9]+$/);
  }
  expect(Object.keys(credentials.simulators).sort()).toEqual(['geotab', 'motive', 'samsara']);
  expect(credentials.simulators.samsara).toEqual({ baseUrl: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+$/), apiToken: expect.any(String) });
  expect(credentials.simulators.motive).toEqual({ baseUrl: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+$/), apiKey: expect.any(String) });
  expect(credentials.simulators.geotab).toEqual({ baseUrl: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+$/), database: expect.any(String), userName: expect.any(String), password: expect.any(String) });
  return credentials;
}

/**
 * Runs every `curl` line of the block exactly as printed (bash, the trailing `# provider` comment
 * included). The status and content type come from a `.curlrc` in CURL_HOME (`write-out`), so
 * nothing is appended to the printed command.
 */
async function runCurlLines(block: string, curlHome: string, credentials: Credentials): Promise<string[]> {
  const commands = [...block.matchAll(/^│\s+(curl .*)$/gm)].map((m) => m[1] as string);
  expect(commands.length).toBeGreaterThanOrEqual(6);
  for (const command of commands) {
    // 30 s: right after the first start the one embedded process also runs the first scheduled
    // collection of every sandbox connection, and a loaded CI machine has answered a line in > 10 s.
    const { stdout } = await run('bash', ['-c', command], { env: { PATH: process.env['PATH'] ?? '/usr/bin:/bin', CURL_HOME: curlHome }, timeout: 30_000 });
    const at = stdout.lastIndexOf(`\n${STATUS_MARK} `);
    expect({ command, answered: at >= 0 }).toEqual({ command, answered: true });
    const [status, contentType] = stdout.slice(at + STATUS_MARK.length + 2).trim().split(' ');
    const text = stdout.slice(0, at);
    const url = new URL((/curl -s '?([^'\s]+)/.exec(command)?.[1] ?? ''));
    expect({ command, status: Number(status) }).toEqual({ command, status: 200 });
    expect(contentType).toMatch(/^application\/json/);
    const body: unknown = JSON.parse(text);
    // Lines to another origin than the gateway's call a provider simulator, named by the trailing comment.
    const simulator = url.origin !== new URL(credentials.baseUrl).origin ? /# (samsara|motive|geotab)$/.exec(command)?.[1] : undefined;
    if (simulator === 'samsara') expect(body).toMatchObject({ data: expect.any(Array), pagination: { hasNextPage: expect.any(Boolean) } });
    else if (simulator === 'motive') expect(body).toMatchObject({ vehicles: expect.any(Array), pagination: { total: expect.any(Number) } });
    else if (simulator === 'geotab') expect(body).toMatchObject({ result: { credentials: { sessionId: expect.any(String) } } });
    else if (url.pathname.startsWith('/v1/')) expectValidResponse(validator, { method: 'GET', path: url.pathname, status: 200, body, contentType });
    // Health routes are deliberately outside the public OpenAPI document.
    else expect(body).toMatchObject({ status: 'ready', ready: true });
  }
  return commands;
}

/**
 * The first collection runs at start: within a minute every sandbox connection has a stored
 * location or odometer of some vehicle (its locations page lists a reading that is not `missing`).
 */
async function telemetryWithinAMinute(credentials: Credentials): Promise<void> {
  const deadline = Date.now() + 60_000;
  const pending = new Set(credentials.connections.map((c) => c.id));
  while (pending.size > 0 && Date.now() < deadline) {
    for (const id of [...pending]) {
      const res = await fetch(`${credentials.baseUrl}/v1/connections/${id}/locations`, { headers: { authorization: `Bearer ${credentials.consumerKey}` } });
      const body = (await res.json()) as { locations?: { location: { status: string } }[] };
      if (res.status === 200 && (body.locations ?? []).some((l) => l.location.status !== 'missing')) pending.delete(id);
    }
    if (pending.size > 0) await new Promise((r) => setTimeout(r, 1_000));
  }
  expect({ withoutTelemetryAfterAMinute: [...pending] }).toEqual({ withoutTelemetryAfterAMinute: [] });
}

/** The services in the order the block prints their metrics URLs: the gateway's METRICS_PORT, then the five ports after it. */
const METRICS_SERVICES = ['gateway', 'sync-orchestrator', 'directory', 'telemetry-ingest', 'fault-feed', 'enrichment'];

/**
 * The printed metrics URLs are internal ports, not the API's — the gateway's METRICS_PORT and each
 * context's own (the five after it, decision 0041): every one serves Prometheus text labelled with its
 * own service; the gateway's counts the requests the curl lines just made, the telemetry-ingest's
 * the observations committed; the API's port answers /metrics as an unknown route.
 */
async function checkMetricsLine(block: string, credentials: Credentials, metricsPort: string): Promise<void> {
  const printed = [...block.matchAll(/^│ {3}(\S+) +(http:\/\/\S+\/metrics)$/gm)].map((m) => ({ service: m[1], url: m[2] }));
  expect(block).toContain("│ Prometheus metrics (internal ports, not the API's; docs/operations.md):");
  expect(printed).toEqual(METRICS_SERVICES.map((service, i) => ({ service, url: `http://127.0.0.1:${Number(metricsPort) + i}/metrics` })));
  for (const { service, url } of printed) {
    const metrics = await fetch(url ?? '');
    expect({ service, status: metrics.status }).toEqual({ service, status: 200 });
    expect(metrics.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    const text = await metrics.text();
    expect(text).toMatch(new RegExp(`^process_cpu_seconds_total\\{service="${service}"\\} `, 'm'));
    if (service === 'gateway') expect(text).toMatch(/^http_requests_total\{[^}]*method="GET"[^}]*route="\/v1\/catalog"[^}]*status="200"[^}]*\} [1-9]\d*$/m);
    // Every service declares its families at start (catalog.ts), so they are listed before a first sample.
    if (service === 'telemetry-ingest') expect(text).toMatch(/^# TYPE switchyard_ingest_records_total counter$/m);
    if (service === 'sync-orchestrator') expect(text).toMatch(/^# TYPE switchyard_provider_requests_total counter$/m);
  }
  const open = await fetch(`${credentials.baseUrl}/metrics`);
  expect({ status: open.status, body: await open.text() }).toEqual({ status: 404, body: JSON.stringify({ error: 'not_found' }) });
}

/**
 * Step 1 of the printed connect walk-through, run exactly as printed from the repository root with
 * nothing but PATH and HOME (no DATABASE_URL, whatever database and bus this start chose): the CLI
 * finds this start's database through `<data dir>/local-stack.json` and pauses the connection; the
 * same command with `connection:resume` puts it back for the rest of the scenario (issue 23 item 3).
 * mutation: operator.ts resolving DATABASE_URL from `env` instead of withLocalStack(env) → answers connection_not_found.
 */
async function runPrintedOperatorStep(block: string, connectionId: string): Promise<void> {
  const printed = /^│\s+1\. (.*npm run operator -- connection:pause .*)$/m.exec(block)?.[1] ?? '';
  expect(printed).toMatch(new RegExp(`connection:pause --connection ${connectionId}$`));
  const env = { PATH: process.env['PATH'] ?? '/usr/bin:/bin', HOME: process.env['HOME'] ?? '/tmp' };
  for (const [command, status] of [[printed, 'paused'], [printed.replace('connection:pause', 'connection:resume'), 'active']] as const) {
    const result = await run('bash', ['-c', command], { cwd: workspaceRoot(), env, timeout: 60_000 }).catch((error: { stdout?: string; stderr?: string }) => error);
    // npm prints its "> switchyard@… operator" header first; the CLI's JSON follows (stderr shown on a failure).
    const at = result.stdout?.indexOf('\n{') ?? -1;
    const answer = at >= 0 ? (JSON.parse(result.stdout?.slice(at + 1) ?? '') as unknown) : undefined;
    expect({ command, stderr: result.stderr?.trim(), answer }).toMatchObject({ command, answer: { connectionId, status } });
  }
}

/**
 * The webhook delivery role runs in `npm start` (decision 0042): an endpoint of the sandbox
 * application, created through the API with its secret, hears the printed operator step's pause and
 * resume of the connection as `connection.paused` then `connection.resumed`, each signed with the
 * endpoint's secret (checked by the receiver), within the poll of the gateway's outbox relay.
 */
async function hookedOperatorStep(block: string, credentials: Credentials): Promise<void> {
  const connectionId = credentials.connections[0]?.id ?? '';
  const receiver = await startWebhookReceiver();
  try {
    const res = await fetch(`${credentials.baseUrl}/v1/webhooks/endpoints`, {
      method: 'POST',
      headers: { authorization: `Bearer ${credentials.applicationSecret}`, 'content-type': 'application/json' },
      body: JSON.stringify({ url: receiver.url, eventTypes: ['connection.paused', 'connection.resumed'] }),
    });
    const created = (await res.json()) as { secret: string };
    expect(res.status).toBe(201);
    receiver.secrets = [created.secret];
    await runPrintedOperatorStep(block, connectionId);
    const got = await pollUntil(() => receiver.received.length >= 2 && receiver.received, { timeoutMs: 30_000, description: 'connection.paused and connection.resumed delivered' });
    expect(got.map((w) => [w.event.type, w.event.subject, w.verified])).toEqual([
      ['connection.paused', connectionId, true],
      ['connection.resumed', connectionId, true],
    ]);
  } finally {
    await receiver.close();
  }
}

async function sigint(proc: NodeProcess): Promise<void> {
  proc.child.kill('SIGINT');
  expect(await proc.waitForExit(10_000)).toEqual({ code: 0, signal: null });
}

let launcherEntry: string;
const running: NodeProcess[] = [];

export function describeLauncherScenario(title: string, setup: () => Promise<ScenarioSetup>): void {
  describe(title, () => {
    let scenario: ScenarioSetup;
    let dataDir: string;
    let curlHome: string;
    let first: { proc: NodeProcess; block: string; credentials: Credentials } | undefined;

    beforeAll(async () => {
      launcherEntry = assertBuilt(
        'launcher/dist/start.js',
        workspaceProjects().filter((p) => p !== 'e2e' && p !== 'libs/testing'),
      );
      dataDir = mkdtempSync(path.join(tmpdir(), 'sy-e2e-'));
      curlHome = mkdtempSync(path.join(tmpdir(), 'sy-curl-'));
      writeFileSync(path.join(curlHome, '.curlrc'), `write-out = "\\n${STATUS_MARK} %{http_code} %{content_type}"\n`);
      scenario = await setup();
    });

    afterAll(async () => {
      try {
        await Promise.all(running.splice(0).map((p) => p.kill()));
        await scenario?.cleanup();
      } finally {
        for (const dir of [dataDir, curlHome]) if (dir) rmSync(dir, { recursive: true, force: true });
      }
    });

    const envFor = async () => ({ ...scenario.env, PORT: String(await freePort()), METRICS_PORT: String(await freePortRange(METRICS_SERVICES.length)), SAMSARA_SIM_PORT: '0', MOTIVE_SIM_PORT: '0', GEOTAB_SIM_PORT: '0', SWITCHYARD_DATA_DIR: dataDir });

    it('first start: names its database and bus, writes the credentials file, and every printed curl line answers 200', async () => {
      const env = await envFor();
      const { proc, block } = await start(env);
      expect(usingLineOf(proc.stdout())).toMatch(scenario.usingLine(dataDir));
      const credentials = readCredentials(path.join(dataDir, 'sandbox-credentials.json'));
      expect(block).toContain(`${credentials.baseUrl}/v1/catalog`);
      expect(block).toContain(credentials.consumerKey);
      expect(block).toContain(`Operator console: ${credentials.baseUrl}/console   sign in with the operator credential ${credentials.operatorCredential}`);
      for (const connection of credentials.connections) expect(block).toContain(`/v1/connections/${connection.id}`);
      expect(block).toMatch(/\/v1\/connections\/[^/]+\/locations /);
      expect(block).toMatch(/\/v1\/connections\/[^/]+\/vehicles\/vcl_\w+\/telemetry /);
      await runCurlLines(block, curlHome, credentials);
      await checkMetricsLine(block, credentials, env.METRICS_PORT);
      await telemetryWithinAMinute(credentials);
      await hookedOperatorStep(block, credentials);
      first = { proc, block, credentials };
    }, START_TEST_MS);

    it('stops on SIGINT with exit code 0', async () => {
      if (!first) throw new Error('the first start failed');
      await sigint(first.proc);
    });

    it('a restart on the same data directory reuses the credentials, which still work', async () => {
      if (!first) throw new Error('the first start failed');
      const env = await envFor();
      const { proc, block } = await start(env);
      const again = readCredentials(path.join(dataDir, 'sandbox-credentials.json'));
      expect(again.baseUrl).not.toBe(first.credentials.baseUrl);
      const withoutUrls = (c: Credentials) => ({
        ...c,
        baseUrl: '',
        simulators: Object.fromEntries(Object.entries(c.simulators).map(([p, sim]) => [p, { ...sim, baseUrl: '' }])),
      });
      expect(withoutUrls(again)).toEqual(withoutUrls(first.credentials));
      // pino writes asynchronously: the line may land just after the block.
      await proc.waitForOutput(/"msg":"sandbox credentials reused"/, 5_000);
      await runCurlLines(block, curlHome, again);
      await checkMetricsLine(block, again, env.METRICS_PORT);
      await sigint(proc);
    }, START_TEST_MS);
  });
}
