// Lint rules that encode the architecture (see docs/architecture.md, "Dependency rules").
// @nx/enforce-module-boundaries reads the tags in each project.json; a wrong-direction import fails `npm run lint`.
import nx from '@nx/eslint-plugin';
import tseslint from 'typescript-eslint';

// Every scope a project may import (scope:system, the cross-app suites, is imported by nothing).
const EVERY_SCOPE = ['scope:shared', 'scope:sandbox', 'scope:gateway', 'scope:sync-orchestrator', 'scope:directory', 'scope:telemetry-ingest', 'scope:fault-feed', 'scope:enrichment'];

const infraPackages = ['@nestjs/*', '@mikro-orm/*', '@nats-io/*', 'nats', 'class-validator', 'class-transformer', 'pg', 'fastify'];

// Text that starts like a SQL statement (a string, or a template literal's first chunk: `update ${t} set …`
// starts with "update "). Tuned to the statement shapes, so prose such as 'Create a sync' or
// '`failed` with failureReason' does not match.
const SQL_START =
  '/^\\s*(select\\s|insert\\s+into\\s|update\\s*$|update\\s+\\S+\\s+(as\\s+\\w+\\s+)?set\\s|delete\\s+from\\s|with\\s+(recursive\\s|\\w+\\s+as\\s*[(])|' +
  '(create|alter|drop)\\s+(table|index|unique|schema|sequence|type|extension|view|function|trigger|materialized|temp|database|or\\s+replace)\\s|' +
  'truncate\\s|copy\\s|analyze\\s|vacuum\\s|lock\\s+table\\s)/i';
const SQL_OUTSIDE_DB = 'SQL lives only in a db/ folder (db/repositories, db/migrations): move this statement into a repository';

export default [
  { ignores: ['**/dist/**', '**/node_modules/**', '.nx/**', 'coverage/**', 'openapi/**', '**/*.cjs'] },
  ...nx.configs['flat/base'],
  ...nx.configs['flat/typescript'],
  {
    files: ['**/*.ts'],
    // Type-aware: each file is checked with the tsconfig that includes it (projectService), so the rules
    // below see types — a promise nobody awaits, a switch that misses a member of a union.
    languageOptions: { parser: tseslint.parser, parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/switch-exhaustiveness-check': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@nx/enforce-module-boundaries': [
        'error',
        {
          enforceBuildableLibDependency: false,
          allow: [],
          depConstraints: [
            { sourceTag: 'type:domain', onlyDependOnLibsWithTags: ['type:domain'], bannedExternalImports: infraPackages },
            { sourceTag: 'type:contract', onlyDependOnLibsWithTags: ['type:domain', 'type:contract'], bannedExternalImports: ['@mikro-orm/*', '@nats-io/*', 'nats', 'pg'] },
            { sourceTag: 'type:adapter', onlyDependOnLibsWithTags: ['type:domain', 'type:contract'], bannedExternalImports: ['@nestjs/*', '@mikro-orm/*', '@nats-io/*', 'nats', 'pg'] },
            { sourceTag: 'type:infra', onlyDependOnLibsWithTags: ['type:domain', 'type:contract', 'type:infra'] },
            { sourceTag: 'type:testing', onlyDependOnLibsWithTags: ['type:domain', 'type:contract', 'type:infra', 'type:adapter'] },
            { sourceTag: 'type:app', onlyDependOnLibsWithTags: ['type:domain', 'type:contract', 'type:infra', 'type:adapter', 'type:testing'] },
            { sourceTag: 'type:sandbox', onlyDependOnLibsWithTags: ['type:domain', 'type:contract', 'type:adapter', 'type:testing'] },
            { sourceTag: 'type:e2e', onlyDependOnLibsWithTags: ['type:contract', 'type:testing', 'type:domain', 'type:sdk'] },
            // The SDK is published alone: it depends on no internal project.
            { sourceTag: 'type:sdk', onlyDependOnLibsWithTags: [] },
            { sourceTag: 'type:launcher', onlyDependOnLibsWithTags: ['type:domain', 'type:contract', 'type:infra', 'type:adapter', 'type:app', 'type:sandbox'] },
            // Cross-app system suites may start any app beside another; nothing depends on them.
            { sourceTag: 'type:system-test', onlyDependOnLibsWithTags: ['type:domain', 'type:contract', 'type:infra', 'type:adapter', 'type:testing', 'type:app', 'type:sandbox'] },
            // Shared libs (and e2e) sit below every context: they never import an app, the sandbox or the launcher.
            { sourceTag: 'scope:shared', onlyDependOnLibsWithTags: ['scope:shared'] },
            // The launcher is the composition root of `npm start`: it starts every app beside the sandbox.
            { sourceTag: 'scope:launcher', onlyDependOnLibsWithTags: EVERY_SCOPE },
            { sourceTag: 'scope:gateway', onlyDependOnLibsWithTags: ['scope:shared', 'scope:gateway'] },
            { sourceTag: 'scope:sync-orchestrator', onlyDependOnLibsWithTags: ['scope:shared', 'scope:sync-orchestrator'] },
            { sourceTag: 'scope:directory', onlyDependOnLibsWithTags: ['scope:shared', 'scope:directory'] },
            { sourceTag: 'scope:telemetry-ingest', onlyDependOnLibsWithTags: ['scope:shared', 'scope:telemetry-ingest'] },
            { sourceTag: 'scope:fault-feed', onlyDependOnLibsWithTags: ['scope:shared', 'scope:fault-feed'] },
            { sourceTag: 'scope:enrichment', onlyDependOnLibsWithTags: ['scope:shared', 'scope:enrichment'] },
            { sourceTag: 'scope:sandbox', onlyDependOnLibsWithTags: ['scope:shared', 'scope:sandbox'] },
            { sourceTag: 'scope:system', onlyDependOnLibsWithTags: EVERY_SCOPE },
          ],
        },
      ],
    },
  },
  {
    // Tests assert presence before use; `!` there is an assertion, not a shortcut.
    files: ['**/*.spec.ts', '**/*.int-spec.ts', '**/test/**/*.ts'],
    rules: { '@typescript-eslint/no-non-null-assertion': 'off' },
  },
  {
    // App code may use the testing lib only from spec files.
    files: ['apps/*/src/**/*.ts'],
    ignores: ['**/*.spec.ts', '**/*.int-spec.ts'],
    rules: { 'no-restricted-imports': ['error', { paths: [{ name: '@switchyard/testing', message: 'libs/testing is for spec files only' }] }] },
  },
  {
    // SQL text only under a context's or lib's db/ folder (conventions "SQL lives only in db/repositories/
    // and db/migrations/"). Exempt: libs/persistence (it is the database layer: ORM, migrator lock, bulk
    // upsert, SQL helpers), libs/testing and specs (they create, reset and inspect test databases).
    files: ['apps/*/src/**/*.ts', 'libs/*/src/**/*.ts'],
    ignores: ['**/db/**', 'libs/persistence/**', 'libs/testing/**', '**/*.spec.ts', '**/*.int-spec.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        { selector: `Literal[value=${SQL_START}]`, message: SQL_OUTSIDE_DB },
        { selector: `TemplateLiteral > TemplateElement:first-child[value.raw=${SQL_START}]`, message: SQL_OUTSIDE_DB },
      ],
    },
  },
];
