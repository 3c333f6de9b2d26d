// Jest-only helpers (they import @jest/globals), kept out of the main entry so scripts and the
// benchmarks can import @switchyard/testing outside Jest.
export { runContextServiceSuite, type ContextServiceSuiteOptions } from './context-service-suite.js';
export { useMigratedSchema } from './use-migrated-schema.js';
