// Public surface of the Geotab adapter: the adapter factory, the JSON-RPC client (the contract
// suite drives GetFeed through it directly), the mappers and the payload schemas.
export { createGeotabAdapter, DEFAULT_GEOTAB_PAGE_SIZES, type GeotabAdapterOptions, type GeotabPageSizes } from './geotab.adapter.js';
export { GeotabClient, GeotabRpcError, GEOTAB_MAX_RESULTS, AUTHENTICATE_LIMIT, parseGeotabRows, serverUrl, type GeotabClientOptions, type GeotabCredentials, type FeedPage, type FeedRows, type GeotabRows, type GeotabCall } from './geotab.client.js';
export { geotabErrorReason } from './geotab.errors.js';
export { mapDevice, mapUser, mapGroups, mapTrips, GEOTAB_FAR_FUTURE_MS, type MapContext } from './geotab.mapper.js';
export { mapFault, type FaultLookups } from './geotab.faults.js';
export { logRecordObservations, statusDataObservation, deviceStatusObservations, engineStateOf, engineStateHistory, DIAGNOSTIC_FOR_METRIC } from './geotab.telemetry.js';
export * from './geotab.schemas.js';
