/**
 * `npm run openapi`: regenerates openapi/openapi.json from the gateway's controllers and DTOs.
 * Builds the module graph in Nest's preview mode (no providers instantiated, no database or bus),
 * which is all the document generator needs.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { renderOpenApi } from './render.js';

const target = path.resolve(process.argv[2] ?? 'openapi/openapi.json');
writeFileSync(target, await renderOpenApi());
console.log(`wrote ${path.relative(process.cwd(), target)}`);
