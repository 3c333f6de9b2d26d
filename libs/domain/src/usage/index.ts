export * from './counters.js';
export * from './time-buckets.js';
export * from './worked-example.js';
export * from './rollups.js';
