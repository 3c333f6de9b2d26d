// Public surface of the Samsara simulator: the kit definition, its factory (page sizes for tests) and the id scheme.
export { createSamsaraSimulator, samsaraSimulator, type SamsaraSimulatorOptions } from './samsara.simulator.js';
export { samsaraVehicleId, samsaraDriverId, samsaraTagId, vehicleIndexOf, driverIndexOf, tagIndexOf, samsaraHasEcu, samsaraProtocol, obdDtcId } from './samsara-ids.js';
