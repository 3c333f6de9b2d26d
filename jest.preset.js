// Shared jest configuration: ESM + @swc/jest (decorator metadata on, like the build),
// path aliases resolved to each project's TypeScript source so tests never need a build.
import { readFileSync } from 'node:fs';
import path from 'node:path';

const root = import.meta.dirname;
const swcrc = JSON.parse(readFileSync(path.join(root, '.swcrc'), 'utf8'));
delete swcrc.exclude;
delete swcrc.$schema;
const tsconfig = JSON.parse(readFileSync(path.join(root, 'tsconfig.base.json'), 'utf8'));

const aliases = Object.fromEntries(
  Object.entries(tsconfig.compilerOptions.paths).map(([alias, [target]]) => [
    `^${alias.replace('/', '\\/')}$`,
    path.join(root, target),
  ]),
);

/** @returns {import('jest').Config} */
export function preset(projectDir, displayName) {
  return {
    displayName,
    rootDir: projectDir,
    testEnvironment: 'node',
    extensionsToTreatAsEsm: ['.ts'],
    testMatch: ['<rootDir>/src/**/*.spec.ts', '<rootDir>/test/**/*.spec.ts', '<rootDir>/test/**/*.int-spec.ts', '<rootDir>/src/**/*.int-spec.ts'],
    moduleNameMapper: { ...aliases, '^(\\.{1,2}/.*)\\.js$': '$1' },
    transform: { '^.+\\.ts$': ['@swc/jest', { ...swcrc, swcrc: false }] },
    setupFiles: [path.join(root, 'jest.setup.js')],
    testTimeout: 30_000,
  };
}
