// Builds the workspace (`npm run build`, nx) only when a source changed since the last build this
// script ran, so `npm run operator` / `npm run dlq` start in well under a second when nothing
// changed (issue 23: every call paid for an nx run first, 1-12 s depending on the machine's load).
// Sources: every project's src/ without its spec files (what nx's `production` inputs hash), and
// .swcrc. The last build is a stamp file dated when that build began, so an edit during a build still
// counts. Usage: node scripts/ensure-built.mjs <entry file that must exist, e.g. apps/gateway/dist/cli/operator.js>
//        node scripts/ensure-built.mjs --always   (npm start, npm test: nx decides what to rebuild, and the stamp
//        is written, so a CLI call during the run does not rebuild — the build replaces every dist/ folder,
//        which pulled apps' modules from under the processes a running suite had spawned, CI 2026-12-07)
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
const stamp = path.join(root, 'node_modules/.cache/switchyard/last-build');
const always = process.argv[2] === '--always';
const entry = always ? undefined : process.argv[2];
const isSpec = (name) => name.endsWith('.spec.ts') || name.endsWith('.int-spec.ts');

function newest(dir) {
  let latest = 0;
  for (const item of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, item.name);
    if (item.isDirectory()) latest = Math.max(latest, newest(full));
    else if (!isSpec(item.name)) latest = Math.max(latest, statSync(full).mtimeMs);
  }
  return latest;
}

function projects() {
  const roots = ['apps', 'libs'].flatMap((group) => readdirSync(path.join(root, group)).map((name) => path.join(root, group, name)));
  return [...roots, ...['sandbox', 'launcher', 'e2e'].map((name) => path.join(root, name))].filter((dir) => existsSync(path.join(dir, 'project.json')));
}

function stale() {
  if (entry && !existsSync(path.resolve(root, entry))) return true;
  if (!existsSync(stamp)) return true;
  const built = statSync(stamp).mtimeMs;
  if (statSync(path.join(root, '.swcrc')).mtimeMs > built) return true;
  return projects().some((dir) => existsSync(path.join(dir, 'src')) && newest(path.join(dir, 'src')) > built);
}

if (always || stale()) {
  const began = new Date();
  // nx reports on stdout, which is the CLI's (JSON): shown on stderr, and only when the build fails.
  const build = spawnSync('npm', ['run', 'build', '--silent'], { cwd: root, stdio: ['ignore', 'pipe', 'inherit'], maxBuffer: 16 * 1024 * 1024 });
  if (build.status !== 0) {
    process.stderr.write(build.stdout ?? '');
    console.error('the build failed (above)');
    process.exit(build.status ?? 1);
  }
  mkdirSync(path.dirname(stamp), { recursive: true });
  writeFileSync(stamp, `${began.toISOString()}\n`);
  utimesSync(stamp, began, began);
}
