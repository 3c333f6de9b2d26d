/** Public surface of the Motive simulator: the dialect for the simulator kit and its constants. */
export { createMotiveSimulator, motiveSimulator, motiveVehicleId, type MotiveSimulatorOptions, MOTIVE_RATE_PER_KEY, MOTIVE_V3_RATE } from './motive.simulator.js';
export { MOTIVE_IDS, MOTIVE_FUEL_TYPES, VIRTUAL_ENGINE_HOURS_OFFSET, VIRTUAL_ODOMETER_FACTOR } from './motive.render.js';
export { MOTIVE_CLOSED_FAULT_RETENTION_MS, MOTIVE_DEFAULT_PER_PAGE, MOTIVE_HISTORY_STEP_MS, MOTIVE_MAX_PER_PAGE, MOTIVE_V3_MAX_RANGE_DAYS } from './motive.routes.js';
