// Public surface of the Samsara adapter. Names are Samsara-prefixed so the providers index can
// re-export every adapter with `export *` without collisions.
export { createSamsaraAdapter, SAMSARA_IDS_PER_REQUEST } from './samsara.adapter.js';
export { SamsaraClient, parseSamsaraPage, SAMSARA_MAX_PAGE_SIZE, SAMSARA_LEGACY_TRIPS_MAX_WINDOW_MS, type SamsaraPage, type SamsaraQuery } from './samsara.client.js';
export {
  SAMSARA_SOURCES,
  mapVehicle as mapSamsaraVehicle,
  mapDriver as mapSamsaraDriver,
  mapTag as mapSamsaraTag,
  mapTrip as mapSamsaraTrip,
  samsaraTripSourceId,
  type DriverPass as SamsaraDriverPass,
  type MapContext as SamsaraMapContext,
} from './samsara.mapper.js';
export {
  SAMSARA_METRIC_TYPES,
  SAMSARA_MAX_TYPES_PER_REQUEST,
  planStatTypeGroups as planSamsaraStatTypeGroups,
  snapshotToSeries as samsaraSnapshotToSeries,
  mapStatsSeries as mapSamsaraStatsSeries,
  mapFaultSnapshots as mapSamsaraFaultSnapshots,
  faultCodesOf as samsaraFaultCodesOf,
} from './samsara-stats.mapper.js';
export * from './samsara.schemas.js';
