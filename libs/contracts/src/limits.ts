/**
 * Every numeric limit of the public contract (spec 8, with the section each comes from), defined once.
 * Invariant: the catalog, the OpenAPI description and the services all read these constants, so the
 * number a client is told is the number the server enforces. Values shared with the domain's
 * connection configuration are taken from it rather than typed again.
 */
import { CONNECTION_CONFIG_LIMITS } from '@switchyard/domain';
import { FAULT_EVENT_RETENTION_DAYS, FAULT_EVENTS_PAGE, FAULTS_PAGE } from './fault-reads.js';
import { HISTORY_PAGE, HISTORY_WINDOW_MAX_DAYS, LOCATIONS_PAGE } from './telemetry-reads.js';
import { FLEET_UTILIZATION_PAGE, USAGE_HOURLY_MAX_DAYS, USAGE_WINDOW_MAX_DAYS } from './usage-reports.js';

const MiB = 1024 * 1024;

/** Refresh: at most once per asset every 30 s, then 429 with Retry-After (spec 4.4, 8). */
export const REFRESH_MIN_INTERVAL_S = 30;
/** Connect session link lifetime: 10 minutes (spec 3, 4.3, 8). */
export const CONNECT_LINK_TTL_S = 600;

/**
 * Request rate of the public API (ours; issue 14, docs/reliability.md): a token bucket per consumer
 * key and one per application secret, shared by every gateway process (PostgreSQL). A request past
 * its bucket is 429 `rate_limited` with `Retry-After`. `ratePerSecond` refills; `burst` is the size.
 */
export const REQUEST_RATE = {
  perConsumerKey: { ratePerSecond: 50, burst: 200 },
  perApplication: { ratePerSecond: 50, burst: 200 },
} as const;

/**
 * Open syncs (requested or in progress) one application may have across its connections (ours;
 * issue 14): a create past it is 409 `too_many_open_syncs`, nothing created; so is a retry past it
 * (a retry reopens a failed sync), which leaves the sync failed.
 */
export const OPEN_SYNCS_PER_APPLICATION = 50;

/** GET /v1/syncs page size: 1 to 100, default 25 (spec 4.1 rule 6, 8). */
export const SYNC_PAGE = { min: 1, max: 100, default: 25 } as const;
/** Sync list cursors expire after 15 minutes (spec 4.1 rule 6, 8). */
export const SYNC_CURSOR_TTL_MS = 15 * 60 * 1000;
/** A sync plan over 10,000 units or 4 MiB is rejected, never truncated (spec 4.1 rule 8, 8). */
export const SYNC_PLAN = { maxUnits: 10_000, maxBytes: 4 * MiB } as const;
/** Default scheduler window, five minutes, with no exact freshness promise (spec 8). */
export const SCHEDULER_WINDOW_S = 300;

/** Trip page size at most 100 (spec 2.7, 8). Pages may hold fewer rows to stay under the byte limit. */
export const TRIP_PAGE_MAX = 100;
/** Vehicle profile page size at most 100 (spec 2.6, 8). */
export const PROFILE_PAGE_MAX = 100;
/** Driver directory page size at most 100 (spec 2.5, 8). */
export const DRIVER_PAGE_MAX = 100;
/** Trip filter ids at most 50 (spec 2.7, 8). */
export const TRIP_FILTER_IDS = 50;
/** Response size limit of trips, vehicle profiles and the group directory: 4 MiB (spec 8). */
export const RESPONSE_BYTE_LIMIT = 4_194_304;

/** Group directory: rows, references and projected bytes (spec 2.2, 8). */
export const GROUP_DIRECTORY = { maxRows: 50_000, maxReferences: 100_000, projectedByteLimit: 67_108_864 } as const;
/** Group inventory: at most 100 approved group ids (spec 2.2, 8). */
export const GROUP_INVENTORY_MAX_IDS: 100 = CONNECTION_CONFIG_LIMITS.maxApprovedGroupIds;
/** Groups per vehicle or driver: at most 1000 (spec 2.3, 2.5, 2.6, 8). */
export const GROUPS_PER_ENTITY = 1000;

/** Utilization: gaps longer than 1800 s between observations are not counted (spec 2.10, 8). */
export const MAX_OBSERVATION_GAP_S = 1800;

/** Selected signals in a connect session: 1 to 4 unique (spec 2.8, 8). */
export const SELECTED_SIGNALS_RANGE = {
  min: CONNECTION_CONFIG_LIMITS.minSessionSelectedSignals,
  max: CONNECTION_CONFIG_LIMITS.maxSelectedSignals,
} as const;

/**
 * Age after which a latest reading is reported `stale` (our choice; the spec promises no freshness).
 * Moving signals: three scheduler windows. Counters only move while driving, so a day-old odometer
 * of a parked vehicle is still its odometer; they go stale after 24 h. Fuel and battery: 1 h.
 */
export const TELEMETRY_FRESHNESS_S = {
  location: 3 * SCHEDULER_WINDOW_S,
  speed: 3 * SCHEDULER_WINDOW_S,
  heading: 3 * SCHEDULER_WINDOW_S,
  engineState: 3 * SCHEDULER_WINDOW_S,
  fuelPercent: 3600,
  batteryVoltage: 3600,
  odometer: 86_400,
  engineHours: 86_400,
  totalIdleTime: 86_400,
} as const;

/** All limits as one object, as the catalog reports them. */
export const LIMITS = {
  refreshMinIntervalSeconds: REFRESH_MIN_INTERVAL_S,
  connectLinkTtlSeconds: CONNECT_LINK_TTL_S,
  syncPage: SYNC_PAGE,
  syncCursorTtlSeconds: SYNC_CURSOR_TTL_MS / 1000,
  syncPlan: SYNC_PLAN,
  schedulerWindowSeconds: SCHEDULER_WINDOW_S,
  tripPageMax: TRIP_PAGE_MAX,
  vehicleProfilePageMax: PROFILE_PAGE_MAX,
  driverPageMax: DRIVER_PAGE_MAX,
  tripFilterIds: TRIP_FILTER_IDS,
  responseByteLimit: RESPONSE_BYTE_LIMIT,
  groupDirectory: GROUP_DIRECTORY,
  groupInventoryMaxIds: GROUP_INVENTORY_MAX_IDS,
  groupsPerEntity: GROUPS_PER_ENTITY,
  maxObservationGapSeconds: MAX_OBSERVATION_GAP_S,
  selectedSignals: SELECTED_SIGNALS_RANGE,
  // Ours (the spec names none): the telemetry, usage and fault reads.
  locationsPage: LOCATIONS_PAGE,
  historyPage: HISTORY_PAGE,
  historyWindowMaxDays: HISTORY_WINDOW_MAX_DAYS,
  usageWindowMaxDays: USAGE_WINDOW_MAX_DAYS,
  usageHourlyIntervalsMaxDays: USAGE_HOURLY_MAX_DAYS,
  fleetUtilizationPage: FLEET_UTILIZATION_PAGE,
  faultsPage: FAULTS_PAGE,
  faultEventsPage: FAULT_EVENTS_PAGE,
  faultEventRetentionDays: FAULT_EVENT_RETENTION_DAYS,
  requestRate: REQUEST_RATE,
  openSyncsPerApplication: OPEN_SYNCS_PER_APPLICATION,
} as const;
