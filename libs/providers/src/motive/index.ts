/**
 * Public surface of the Motive adapter: the factory, plus the client, schemas and mappers for the
 * contract suite and the benchmark. Names are Motive-prefixed so the providers index can re-export
 * every adapter with `export *` without collisions.
 */
export { createMotiveAdapter, dateChunks as motiveDateChunks, MOTIVE_HISTORY_CHUNK_DAYS } from './motive.adapter.js';
export { MotiveClient, MOTIVE_MAX_PER_PAGE, MOTIVE_V3_MAX_CONCURRENCY, nextPageNo as motiveNextPageNo } from './motive.client.js';
export type { UnitsMode as MotiveUnitsMode } from './motive.fields.js';
export {
  isDriver as isMotiveDriver,
  mapDriver as mapMotiveDriver,
  mapFuelType as mapMotiveFuelType,
  mapGroup as mapMotiveGroup,
  mapVehicle as mapMotiveVehicle,
  MOTIVE_GROUP_SOURCE,
  MOTIVE_USER_SOURCE,
  MOTIVE_VEHICLE_SOURCE,
  type MembershipLookup as MotiveMembershipLookup,
} from './motive.mapper.js';
export {
  buildFaultSnapshots as buildMotiveFaultSnapshots,
  deriveEngineState as deriveMotiveEngineState,
  faultCodeOf as motiveFaultCodeOf,
  faultKeyOf as motiveFaultKeyOf,
  mapDrivingPeriod as mapMotiveDrivingPeriod,
  mapLocationPoint as mapMotiveLocationPoint,
  MOTIVE_TRIP_SOURCE,
  type TripOutcome as MotiveTripOutcome,
} from './motive-telemetry.mapper.js';
export * as motiveSchemas from './motive.schemas.js';
