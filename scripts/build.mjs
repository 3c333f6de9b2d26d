// Compiles one project's src/**/*.ts to dist/ with SWC (decorator metadata on, ESM out).
// Type checking is the separate `typecheck` target (tsc --noEmit); this stays fast (~0.3 s a project).
// Usage: node scripts/build.mjs <projectRoot>
import { transformFile } from '@swc/core';
import { mkdir, readFile, readdir, rm, writeFile, copyFile } from 'node:fs/promises';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
const projectRoot = path.resolve(root, process.argv[2] ?? '.');
const src = path.join(projectRoot, 'src');
const out = path.join(projectRoot, 'dist');
const swcrc = JSON.parse(await readFile(path.join(root, '.swcrc'), 'utf8'));
delete swcrc.$schema;
delete swcrc.exclude;

const isTest = (f) => f.endsWith('.spec.ts') || f.endsWith('.int-spec.ts');

async function* walk(dir) {
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) yield* walk(full);
    else yield full;
  }
}

await rm(out, { recursive: true, force: true });
let count = 0;
const jobs = [];
for await (const file of walk(src)) {
  const rel = path.relative(src, file);
  if (file.endsWith('.ts') && !file.endsWith('.d.ts') && !isTest(file)) {
    const target = path.join(out, rel.replace(/\.ts$/, '.js'));
    jobs.push(
      transformFile(file, { ...swcrc, swcrc: false, filename: file, sourceFileName: path.relative(path.dirname(target), file) }).then(async ({ code, map }) => {
        await mkdir(path.dirname(target), { recursive: true });
        await writeFile(target, `${code}\n//# sourceMappingURL=${path.basename(target)}.map\n`);
        if (map) await writeFile(`${target}.map`, map);
      }),
    );
    count++;
  } else if (!file.endsWith('.ts')) {
    // Assets (json, html, sql) ship next to the code that reads them.
    const target = path.join(out, rel);
    jobs.push(mkdir(path.dirname(target), { recursive: true }).then(() => copyFile(file, target)));
  }
}
await Promise.all(jobs);
if (process.env.BUILD_VERBOSE) console.log(`built ${count} files in ${path.relative(root, projectRoot)}`);
