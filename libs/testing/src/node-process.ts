/**
 * Built programs run as real processes on the workspace's pinned Node 24, for tests that treat a
 * service or the launcher as a black box: spawn, wait for a line, signal, wait for the exit code.
 * Invariants: the child gets only the environment the test passes (plus PATH and HOME), so the
 * developer's own DATABASE_URL or NATS_URL never leaks into a test; a missing built entry point
 * fails with one message saying to run `npm run build`, and a dist older than its sources is
 * reported (a warning, not a failure: Nx restores an unchanged build from its cache without
 * touching the files, so a source merely re-saved looks newer than a dist that is current).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The directory holding nx.json, found by walking up from this file. */
export function workspaceRoot(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (;;) {
    if (existsSync(path.join(dir, 'nx.json'))) return dir;
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error('workspace root (nx.json) not found above libs/testing');
    dir = parent;
  }
}

/** `node_modules/node/bin/node`: the `node` devDependency (Node 24), never the PATH's Node. */
export function pinnedNode(): string {
  const node = path.join(workspaceRoot(), 'node_modules', 'node', 'bin', 'node');
  if (!existsSync(node)) throw new Error(`${node} is missing: run npm install (the node devDependency pins Node 24)`);
  return node;
}

function* files(dir: string, keep: (file: string) => boolean): Iterable<string> {
  if (!existsSync(dir)) return;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) yield* files(full, keep);
    else if (keep(full)) yield full;
  }
}

const isSource = (f: string) => f.endsWith('.ts') && !f.endsWith('.d.ts') && !f.endsWith('.spec.ts') && !f.endsWith('.int-spec.ts');

/**
 * Throws unless `entry` (relative to the workspace root) and each project root's dist exist; warns
 * when a project's source file is newer than its dist (scripts/build.mjs rewrites a whole dist).
 * Returns the absolute path of `entry`.
 */
export function assertBuilt(entry: string, projectRoots: readonly string[]): string {
  const root = workspaceRoot();
  const advice = 'run `npm run build` first (`npm test` builds before testing)';
  const file = path.join(root, entry);
  if (!existsSync(file)) throw new Error(`${entry} is missing: ${advice}`);
  for (const project of projectRoots) {
    const built = [...files(path.join(root, project, 'dist'), (f) => f.endsWith('.js'))].map((f) => statSync(f).mtimeMs);
    if (built.length === 0) throw new Error(`${project}/dist is missing: ${advice}`);
    const oldestBuild = Math.min(...built);
    for (const source of files(path.join(root, project, 'src'), isSource)) {
      if (statSync(source).mtimeMs > oldestBuild) {
        process.stderr.write(`warning: ${project}/dist may be older than ${path.relative(root, source)}; if this test fails, ${advice}\n`);
        break;
      }
    }
  }
  return file;
}

/** Every npm workspace (package.json `workspaces`) that has a package.json and a src folder, e.g. `apps/gateway`. */
export function workspaceProjects(): string[] {
  const root = workspaceRoot();
  const { workspaces } = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { workspaces: string[] };
  const roots = workspaces.flatMap((pattern) =>
    pattern.endsWith('/*')
      ? readdirSync(path.join(root, pattern.slice(0, -2)), { withFileTypes: true })
          .filter((d) => d.isDirectory())
          .map((d) => `${pattern.slice(0, -2)}/${d.name}`)
      : [pattern],
  );
  return roots.filter((r) => existsSync(path.join(root, r, 'src')) && existsSync(path.join(root, r, 'package.json')));
}

export interface NodeProcess {
  readonly child: ChildProcess;
  /** stdout and stderr interleaved as received. */
  output(): string;
  stdout(): string;
  stderr(): string;
  /** Resolves with the first match in the output so far or to come; rejects on exit or timeout. */
  waitForOutput(pattern: RegExp, timeoutMs?: number): Promise<RegExpMatchArray>;
  /** Resolves with the exit code (null when killed by a signal) and signal; rejects after timeoutMs. */
  waitForExit(timeoutMs?: number): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** SIGKILL if still running (for afterAll; never the way a test stops a process it asserts on). */
  kill(): Promise<void>;
}

export interface SpawnNodeOptions {
  /** The child's whole environment besides PATH, HOME and TZ=UTC. */
  env?: Record<string, string>;
  cwd?: string;
  args?: string[];
}

export function spawnNode(script: string, options: SpawnNodeOptions = {}): NodeProcess {
  const env = { PATH: process.env['PATH'] ?? '/usr/bin:/bin', HOME: process.env['HOME'] ?? '/tmp', TZ: 'UTC', NODE_NO_WARNINGS: '1', ...options.env };
  const child = spawn(pinnedNode(), ['--enable-source-maps', script, ...(options.args ?? [])], { cwd: options.cwd ?? workspaceRoot(), env, stdio: ['ignore', 'pipe', 'pipe'] });
  const all: string[] = [];
  const out: string[] = [];
  const err: string[] = [];
  const listeners = new Set<() => void>();
  const notify = () => listeners.forEach((l) => l());
  child.stdout?.on('data', (chunk: Buffer) => (out.push(chunk.toString('utf8')), all.push(chunk.toString('utf8')), notify()));
  child.stderr?.on('data', (chunk: Buffer) => (err.push(chunk.toString('utf8')), all.push(chunk.toString('utf8')), notify()));
  // 'close', not 'exit': 'exit' can come before the last chunks of the child's pipes are read, so a
  // line written just before dying (a crash point's, a fatal error's) could be missing from stderr().
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.once('close', (code: number | null, signal: NodeJS.Signals | null) => resolve({ code, signal })));
  let hasExited = false;
  void exited.then(() => ((hasExited = true), notify()));

  const tail = () => all.join('').slice(-4_000);
  return {
    child,
    output: () => all.join(''),
    stdout: () => out.join(''),
    stderr: () => err.join(''),
    waitForOutput(pattern, timeoutMs = 15_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const match = all.join('').match(pattern);
          if (match) return done(() => resolve(match));
          if (hasExited) done(() => reject(new Error(`process exited before printing ${pattern}; output:\n${tail()}`)));
        };
        const timer = setTimeout(() => done(() => reject(new Error(`no ${pattern} within ${timeoutMs} ms; output:\n${tail()}`))), timeoutMs);
        const done = (settle: () => void) => {
          clearTimeout(timer);
          listeners.delete(check);
          settle();
        };
        listeners.add(check);
        check();
      });
    },
    waitForExit(timeoutMs = 10_000) {
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`process ${child.pid} still running after ${timeoutMs} ms; output:\n${tail()}`)), timeoutMs);
        void exited.then((result) => {
          clearTimeout(timer);
          resolve(result);
        });
      });
    },
    async kill() {
      if (hasExited) return;
      child.kill('SIGKILL');
      await exited;
    },
  };
}

/** The OAuth client the Samsara and Motive simulators register unless SIM_OAUTH_CLIENT_ID / _SECRET say otherwise (sandbox oauth.routes.ts). */
export const SIMULATOR_OAUTH_CLIENT = { clientId: 'switchyard-sandbox', clientSecret: 'switchyard-sandbox-secret' } as const;

/** The simulators' OAuth endpoints, as the providers name them (sandbox oauth.routes.ts). */
export const SIMULATOR_OAUTH_PATHS = { samsara: { authorize: '/oauth2/authorize', token: '/oauth2/token' }, motive: { authorize: '/oauth/authorize', token: '/oauth/token' } } as const;

/**
 * An authorization code from a simulator's consent page, approved for its first account as the
 * customer's browser would (the form POSTed, the redirect's `code` read, not followed).
 */
export async function simulatorAuthorizationCode(simulatorUrl: string, provider: keyof typeof SIMULATOR_OAUTH_PATHS, clientId: string, redirectUri: string): Promise<string> {
  const consent = await fetch(`${simulatorUrl}${SIMULATOR_OAUTH_PATHS[provider].authorize}`, {
    method: 'POST',
    body: new URLSearchParams({ client_id: clientId, redirect_uri: redirectUri, state: 'state', response_type: 'code', decision: 'approve', account: '0' }),
    redirect: 'manual',
  });
  const code = new URL(consent.headers.get('location') ?? 'http://invalid').searchParams.get('code');
  if (!code) throw new Error(`no code from the ${provider} simulator's consent page (${consent.status})`);
  return code;
}

/**
 * A provider simulator as its own process, from the built `sandbox/dist/<provider>/main.js` (apps'
 * tests may not import the sandbox): free port, the given env (accounts, SIM_* settings), and the
 * base URL it prints once listening.
 */
export async function spawnSimulator(provider: 'samsara' | 'motive' | 'geotab', env: Record<string, string>): Promise<{ process: NodeProcess; url: string }> {
  const script = assertBuilt(`sandbox/dist/${provider}/main.js`, ['sandbox']);
  const process = spawnNode(script, { env: { PORT: '0', ...env } });
  const url = (await process.waitForOutput(/"url":"(http:\/\/[^"]+)"/))[1];
  if (!url) throw new Error(`${provider} simulator printed no url`);
  return { process, url };
}
