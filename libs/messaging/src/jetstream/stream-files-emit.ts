/**
 * `npm run nats:streams`: regenerates deploy/nats/streams/*.json from subjects.ts (stream-files.ts);
 * files of streams no longer declared are removed. stream-files.spec.ts fails while they are stale.
 */
import { readdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { streamFiles, streamFileText } from './stream-files.js';

const dir = path.resolve(process.argv[2] ?? 'deploy/nats/streams');
const files = streamFiles();
for (const name of readdirSync(dir)) if (name.endsWith('.json') && !files.has(name)) rmSync(path.join(dir, name));
for (const [name, file] of files) writeFileSync(path.join(dir, name), streamFileText(file));
console.log(`wrote ${files.size} files to ${path.relative(process.cwd(), dir)}`);
