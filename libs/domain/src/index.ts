// Public surface of @switchyard/domain: pure TypeScript (node:crypto only), no framework or infrastructure.
export * from './providers.js';
export * from './ids.js';
export * from './units.js';
export * from './reason-codes.js';
export * from './date-time.js';
export * from './connection-config.js';
export * from './vehicle-visibility.js';
export * from './telemetry-metrics.js';
export * from './telemetry-coverage.js';
export * from './records/index.js';
export * from './usage/index.js';
export * from './vin.js';
