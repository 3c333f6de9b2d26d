// Public surface of the Geotab simulator: the kit definition and the id / version helpers the
// contract suite uses to compute what the simulator shows.
export { geotabSimulator, GEOTAB_RATE_LIMITS, rpcErrorBody } from './geotab.simulator.js';
export { SESSION_TTL_MS, GEOTAB_MAX_RESULTS } from './geotab.rpc.js';
export { LOG_STEP_MS, STATUS_STEP_MS, LATE_REPLAY_FACTOR } from './geotab.series.js';
export { GEOTAB_ARCHIVED_COUNT, GEOTAB_MAX_DATE, GEOTAB_PLACEHOLDER_SERIAL, GEOTAB_TRAILER_COUNT, geotabArchivedId, geotabTrailerId, timeSpan, kmh } from './geotab.render.js';
export * from './geotab-ids.js';
