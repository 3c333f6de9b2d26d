/**
 * The catalog's endpoint table (spec 4): every public route with its auth scheme and retrieval mode.
 * The spec leaves the internal shape of `endpoints` open; ours is keyed "METHOD /path" because one
 * path can carry two methods (GET and POST /v1/syncs). Invariant: `retrieval: 'stored'` is said only
 * of routes that never contact a provider (spec 1 global rule 4).
 */

export type EndpointAuth = 'application_secret' | 'consumer_key';
/**
 * stored: served from stored data, no provider contact. provider_on_demand: may call the provider
 * (refresh). control: changes or reads workflow state, not fleet data. static: the same for everyone.
 */
export type EndpointRetrieval = 'stored' | 'provider_on_demand' | 'control' | 'static';

export interface CatalogEndpoint {
  readonly method: 'GET' | 'POST';
  readonly path: string;
  readonly auth: EndpointAuth;
  readonly retrieval: EndpointRetrieval;
}

const C = '/v1/connections/{id}';
const V = `${C}/vehicles/{vehicleId}`;

const rows: ReadonlyArray<readonly [CatalogEndpoint['method'], string, EndpointAuth, EndpointRetrieval]> = [
  // 4.1 sync (APP)
  ['POST', '/v1/syncs', 'application_secret', 'control'],
  ['GET', '/v1/syncs', 'application_secret', 'control'],
  ['GET', '/v1/syncs/{id}', 'application_secret', 'control'],
  ['POST', '/v1/syncs/{id}/retry', 'application_secret', 'control'],
  ['POST', '/v1/syncs/{id}/cancel', 'application_secret', 'control'],
  // 4.2 stored directory reads (KEY)
  ['GET', `${C}/trips`, 'consumer_key', 'stored'],
  ['GET', `${C}/trips/{tripId}`, 'consumer_key', 'stored'],
  ['GET', `${C}/drivers`, 'consumer_key', 'stored'],
  ['GET', `${C}/drivers/{driverId}`, 'consumer_key', 'stored'],
  ['GET', `${C}/groups`, 'consumer_key', 'stored'],
  ['GET', `${C}/groups/{groupId}`, 'consumer_key', 'stored'],
  ['GET', `${C}/vehicles`, 'consumer_key', 'stored'],
  ['GET', V, 'consumer_key', 'stored'],
  ['GET', `${V}/metadata`, 'consumer_key', 'stored'],
  ['GET', `${V}/profile`, 'consumer_key', 'stored'],
  ['GET', `${V}/identity`, 'consumer_key', 'stored'],
  ['GET', `${V}/images`, 'consumer_key', 'stored'],
  ['GET', `${V}/specifications`, 'consumer_key', 'stored'],
  ['GET', `${V}/build`, 'consumer_key', 'stored'],
  ['GET', `${C}/locations`, 'consumer_key', 'stored'],
  // 4.3 catalog and connection (KEY)
  ['GET', '/v1/catalog', 'consumer_key', 'static'],
  ['GET', C, 'consumer_key', 'control'],
  ['GET', `${C}/capabilities`, 'consumer_key', 'static'],
  ['POST', `${C}/connect-sessions`, 'consumer_key', 'control'],
  ['GET', `${C}/connect-sessions/{sessionId}`, 'consumer_key', 'control'],
  ['POST', `${C}/disconnect`, 'consumer_key', 'control'],
  // 4.4 telemetry and faults (KEY)
  ['GET', `${V}/telemetry`, 'consumer_key', 'stored'],
  ['POST', `${V}/refresh`, 'consumer_key', 'provider_on_demand'],
  ['GET', `${C}/faults`, 'consumer_key', 'stored'],
  ['GET', `${C}/fault-events`, 'consumer_key', 'stored'],
  ['GET', `${V}/history`, 'consumer_key', 'stored'],
  ['GET', `${V}/utilization`, 'consumer_key', 'stored'],
  ['GET', `${V}/distance`, 'consumer_key', 'stored'],
  ['GET', `${V}/engine-hours`, 'consumer_key', 'stored'],
  ['GET', `${V}/idling`, 'consumer_key', 'stored'],
  ['GET', `${C}/utilization`, 'consumer_key', 'stored'],
];

export const CATALOG_ENDPOINTS: Readonly<Record<string, CatalogEndpoint>> = Object.fromEntries(
  rows.map(([method, path, auth, retrieval]) => [`${method} ${path}`, { method, path, auth, retrieval }]),
);
