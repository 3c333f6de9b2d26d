/**
 * The catalog's endpoint table (spec 4): every public route of the contract with its area, auth,
 * retrieval mode and whether this release serves it. The spec leaves the internal shape of
 * `endpoints` open; ours is keyed "METHOD /path" because one path can carry two methods (GET and
 * POST /v1/syncs). Invariants: `retrieval: 'stored'` is said only of routes that never contact a
 * provider (spec 1 global rule 4); `releaseStatus: 'preview'` is said of exactly the operations the
 * gateway registers — the gateway's OpenAPI test compares this table with the generated document
 * and its catalog test calls every `not_released` route and gets 404 — so this table is the one
 * place that says what the deployed release serves (spec 9), and the catalog's per-area
 * releaseStatus and roadmap are derived from it.
 */

/**
 * consumer_key: a bearer consumer key `pt_…` with a grant on the connection.
 * application_secret_and_connection_token: a bearer application secret `sk_…` plus the
 * Connection-Token header (spec 4 "APP", spec 5): the secret alone authorizes no sync route.
 */
export type EndpointAuth = 'application_secret_and_connection_token' | 'consumer_key';
/**
 * stored: served from stored data, no provider contact. provider_on_demand: may call the provider
 * (refresh). control: changes or reads workflow state, not fleet data. static: the same for everyone.
 */
export type EndpointRetrieval = 'stored' | 'provider_on_demand' | 'control' | 'static';
/** preview: served by this deployment, under the preview contract (spec 9). not_released: part of the contract, not served by this deployment (404). */
export type EndpointReleaseStatus = 'preview' | 'not_released';

/** The feature an endpoint belongs to; the catalog's area entries and roadmap are keyed by it. */
export const ENDPOINT_AREAS = [
  'syncs',
  'trips',
  'drivers',
  'groups',
  'vehicles',
  'vehicleMetadata',
  'enrichment',
  'locations',
  'catalog',
  'connection',
  'connectSessions',
  'disconnect',
  'telemetry',
  'refresh',
  'faults',
  'history',
  'usageReports',
  // Additions beyond the specification's 36 operations (each says so in its description).
  'freshness',
] as const;
export type EndpointArea = (typeof ENDPOINT_AREAS)[number];

export interface CatalogEndpoint {
  readonly method: 'GET' | 'POST';
  readonly path: string;
  readonly area: EndpointArea;
  readonly auth: EndpointAuth;
  readonly retrieval: EndpointRetrieval;
  readonly releaseStatus: EndpointReleaseStatus;
}

const C = '/v1/connections/{id}';
const V = `${C}/vehicles/{vehicleId}`;
const APP: EndpointAuth = 'application_secret_and_connection_token';
const KEY: EndpointAuth = 'consumer_key';
const SERVED = 'preview';

type Row = readonly [CatalogEndpoint['method'], string, EndpointArea, EndpointAuth, EndpointRetrieval, EndpointReleaseStatus];

const rows: readonly Row[] = [
  // 4.1 sync (APP)
  ['POST', '/v1/syncs', 'syncs', APP, 'control', SERVED],
  ['GET', '/v1/syncs', 'syncs', APP, 'control', SERVED],
  ['GET', '/v1/syncs/{id}', 'syncs', APP, 'control', SERVED],
  ['POST', '/v1/syncs/{id}/retry', 'syncs', APP, 'control', SERVED],
  ['POST', '/v1/syncs/{id}/cancel', 'syncs', APP, 'control', SERVED],
  // 4.2 stored directory reads (KEY)
  ['GET', `${C}/trips`, 'trips', KEY, 'stored', SERVED],
  ['GET', `${C}/trips/{tripId}`, 'trips', KEY, 'stored', SERVED],
  ['GET', `${C}/drivers`, 'drivers', KEY, 'stored', SERVED],
  ['GET', `${C}/drivers/{driverId}`, 'drivers', KEY, 'stored', SERVED],
  ['GET', `${C}/groups`, 'groups', KEY, 'stored', SERVED],
  ['GET', `${C}/groups/{groupId}`, 'groups', KEY, 'stored', SERVED],
  ['GET', `${C}/vehicles`, 'vehicles', KEY, 'stored', SERVED],
  ['GET', V, 'vehicles', KEY, 'stored', SERVED],
  ['GET', `${V}/metadata`, 'vehicleMetadata', KEY, 'stored', SERVED],
  ['GET', `${V}/profile`, 'enrichment', KEY, 'stored', SERVED],
  ['GET', `${V}/identity`, 'enrichment', KEY, 'stored', SERVED],
  ['GET', `${V}/images`, 'enrichment', KEY, 'stored', SERVED],
  ['GET', `${V}/specifications`, 'enrichment', KEY, 'stored', SERVED],
  ['GET', `${V}/build`, 'enrichment', KEY, 'stored', SERVED],
  ['GET', `${C}/locations`, 'locations', KEY, 'stored', SERVED],
  // 4.3 catalog and connection (KEY)
  ['GET', '/v1/catalog', 'catalog', KEY, 'static', SERVED],
  ['GET', C, 'connection', KEY, 'control', SERVED],
  ['GET', `${C}/capabilities`, 'connection', KEY, 'static', SERVED],
  ['POST', `${C}/connect-sessions`, 'connectSessions', KEY, 'control', SERVED],
  ['GET', `${C}/connect-sessions/{sessionId}`, 'connectSessions', KEY, 'control', SERVED],
  ['POST', `${C}/disconnect`, 'disconnect', KEY, 'control', SERVED],
  // 4.4 telemetry and faults (KEY)
  ['GET', `${V}/telemetry`, 'telemetry', KEY, 'stored', SERVED],
  ['POST', `${V}/refresh`, 'refresh', KEY, 'provider_on_demand', SERVED],
  ['GET', `${C}/faults`, 'faults', KEY, 'stored', SERVED],
  ['GET', `${C}/fault-events`, 'faults', KEY, 'stored', SERVED],
  ['GET', `${V}/history`, 'history', KEY, 'stored', SERVED],
  ['GET', `${V}/utilization`, 'usageReports', KEY, 'stored', SERVED],
  ['GET', `${V}/distance`, 'usageReports', KEY, 'stored', SERVED],
  ['GET', `${V}/engine-hours`, 'usageReports', KEY, 'stored', SERVED],
  ['GET', `${V}/idling`, 'usageReports', KEY, 'stored', SERVED],
  ['GET', `${C}/utilization`, 'usageReports', KEY, 'stored', SERVED],
];

/**
 * Operations beyond the specification's 36 (each says so in its OpenAPI description), listed in the
 * catalog like the contract's: data freshness per signal (issue 27, decision 0041).
 */
const additions: readonly Row[] = [['GET', `${C}/freshness`, 'freshness', KEY, 'stored', SERVED]];

const entry = ([method, path, area, auth, retrieval, releaseStatus]: Row): [string, CatalogEndpoint] => [`${method} ${path}`, { method, path, area, auth, retrieval, releaseStatus }];

/** The contract's own operations (spec 4): exactly 36. */
export const CONTRACT_ENDPOINT_KEYS: readonly string[] = rows.map((row) => entry(row)[0]);

/** Every operation the catalog lists: the contract's and the additions beyond it. */
export const CATALOG_ENDPOINTS: Readonly<Record<string, CatalogEndpoint>> = Object.fromEntries([...rows, ...additions].map(entry));
