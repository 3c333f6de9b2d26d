/** `npm run asyncapi`: regenerates asyncapi/asyncapi.json from subjects.ts and the zod schemas (document.ts). */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { renderAsyncApi } from './document.js';

const target = path.resolve(process.argv[2] ?? 'asyncapi/asyncapi.json');
writeFileSync(target, renderAsyncApi());
console.log(`wrote ${path.relative(process.cwd(), target)}`);
