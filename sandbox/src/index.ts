// Public surface of the sandbox (provider simulators): the synthetic fleet, the simulator kit and its contracts.
export type * from './fleet/fleet.types.js';
export type * from './common/scenario.types.js';
export type * from './common/sim-kit.types.js';
export { createFleet, resolveFleetOptions, DEFAULT_EPOCH_MS, fixedClock, acceleratedClock, isControllableClock, type ControllableClock, type ClockSetting } from './fleet/fleet.js';
export { isValidVin, vinCheckDigit } from './fleet/vin.js';
export { faultKey, type FaultCode } from './fleet/catalog.js';
export { startSimulator } from './common/simulator.js';
export { createAccountFleet, swappedSerial } from './common/account-fleet.js';
export { applyDuplicateAndReorder, pageWithScenario, findScenario, type DuplicateAndReorder } from './common/duplicate-reorder.js';
export { applyFieldChange, truncateBody } from './common/field-change.js';
export { scenarioSchema, scenarioListSchema } from './common/scenario.schema.js';
export { scenarioMatches } from './common/scenario-book.js';
export { TokenBuckets } from './common/token-bucket.js';
export { TrafficStats, MAX_STATS_PATHS, type TrafficCounts } from './common/control-api.js';
export { startSimulators, simulatorAccounts, type StartSimulatorsOptions, type SimulatorCredentials, type RunningSimulators } from './start-simulators.js';
export { samsaraSimulator } from './samsara/index.js';
export { motiveSimulator } from './motive/index.js';
export { geotabSimulator } from './geotab/index.js';
