// Public surface of @switchyard/contracts: REST contract pieces shared by the gateway, the services and the tests.
export * from './error-codes.js';
export * from './cursor.js';
export * from './ids.js';
export * from './limits.js';
export * from './pagination.js';
export * from './vehicle-metadata.js';
export * from './driver.js';
export * from './catalog-endpoints.js';
export * from './catalog.js';
export * from './telemetry-reads.js';
export * from './usage-reports.js';
export * from './fault-reads.js';
export * from './history-retention.js';
