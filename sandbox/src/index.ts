// Public surface of the sandbox (provider simulators): filled in by the simulator work.
export type * from './fleet/fleet.types.js';
export type * from './common/scenario.types.js';
export type * from './common/sim-kit.types.js';
