/**
 * The Catalog (spec 2.12): fields, units, operations and limits, as GET /v1/catalog serves it.
 * Invariant: every number in it is read from limits.ts and every enumerated list from the tuples that
 * the rest of the code uses (metadata keys, telemetry metrics, endpoints), so the catalog cannot
 * promise something the services do not enforce. Area wording is ours where the spec says "string".
 * What this deployment serves (spec 9: "the catalog reports a releaseStatus per area") is derived
 * from the one endpoint table (catalog-endpoints.ts): an area's releaseStatus from its endpoints',
 * the roadmap's per-area entries from the endpoints not released yet.
 */
import { CORE_TELEMETRY_METRICS, TELEMETRY_METRICS, type DerivationCode, type TelemetryMetric } from '@switchyard/domain';
import { CATALOG_ENDPOINTS, ENDPOINT_AREAS, type CatalogEndpoint, type EndpointArea } from './catalog-endpoints.js';
import { FAULT_EVENT_RETENTION_DAYS, FAULT_EVENTS_PAGE, FAULTS_PAGE } from './fault-reads.js';
import { HISTORY_RETENTION_DAYS } from './history-retention.js';
import {
  GROUP_DIRECTORY,
  GROUP_INVENTORY_MAX_IDS,
  LIMITS,
  PROFILE_PAGE_MAX,
  RESPONSE_BYTE_LIMIT,
  TELEMETRY_FRESHNESS_S,
  TRIP_FILTER_IDS,
  TRIP_PAGE_MAX,
} from './limits.js';
import { VEHICLE_METADATA_KEYS, type VehicleMetadataKey } from './vehicle-metadata.js';

/** Interface version (spec 9). */
export const API_VERSION = 'v1';
/** Description version of the OpenAPI document this catalog belongs to (spec 9). */
export const CATALOG_VERSION = '1.16.0';
/** Date the catalog text was last reviewed against the services. */
export const CATALOG_REVIEWED_AT = '2026-11-22';

/** The contract's own maturity (spec 1, 9: a preview contract). */
export type ContractReleaseStatus = 'preview';
/**
 * An area in this deployment, from its endpoints: preview = every one served (under the preview
 * contract), partial = some served, not_released = none served yet (their routes answer 404).
 */
export type ReleaseStatus = 'preview' | 'partial' | 'not_released';
export const RELEASE_STATUSES = ['preview', 'partial', 'not_released'] as const satisfies readonly ReleaseStatus[];

export const ENRICHMENT_PRODUCTS = ['identity', 'images', 'specifications', 'build'] as const;
export type EnrichmentProduct = (typeof ENRICHMENT_PRODUCTS)[number];

export interface CatalogField {
  readonly name: TelemetryMetric;
  readonly label: string;
  /** Unit of the value after normalization; speed is meters_per_second (spec 2.10 only says "number >= 0"). */
  readonly unit?: string;
  readonly kind: 'position' | 'counter' | 'gauge' | 'state';
  readonly freshnessSeconds: number;
  /** Key (or keys, comma-separated) of the reading's value object (spec 2.10 value shapes). */
  readonly valueKey: string;
  /** core: always reported (status may be missing). extended_opt_in: needs the extended telemetry opt-in. */
  readonly availability: 'core' | 'extended_opt_in';
  /** Per provider, its capability `telemetry.<name>` (supported, conditional, unsupported); present when the caller supplies the capabilities. */
  readonly providers?: Readonly<Record<string, string>>;
}

/** Each provider's capability fields (libs/providers `capabilitiesFor(p).fields`), handed in by the gateway (contracts does not import adapters). */
export type ProviderFieldSupport = Readonly<Record<string, Readonly<Record<string, string>>>>;

export interface Catalog {
  readonly apiVersion: string;
  readonly catalogVersion: string;
  readonly releaseStatus?: ContractReleaseStatus;
  readonly reviewedAt?: string;
  readonly fields: readonly CatalogField[];
  readonly endpoints: Readonly<Record<string, CatalogEndpoint>>;
  readonly roadmap: Readonly<Record<string, string>>;
  readonly enrichment: {
    readonly releaseStatus: ReleaseStatus;
    readonly collection: string;
    readonly enablement: string;
    readonly measurements: string;
    readonly images: string;
    readonly products: readonly EnrichmentProduct[];
  };
  readonly driverDirectory: {
    readonly releaseStatus: ReleaseStatus;
    readonly authorization: string;
    readonly retrieval: 'stored';
    readonly identity: string;
    readonly modification: string;
    readonly groupRelations: string;
    readonly membershipCapture: string;
    readonly gaps: readonly string[];
  };
  readonly tripHistory: {
    readonly releaseStatus: ReleaseStatus;
    readonly authorization: string;
    readonly coverage: string;
    readonly retrieval: 'stored';
    readonly units: { readonly distance: 'kilometers'; readonly duration: 'milliseconds' };
    readonly maxPageSize: number;
    readonly maxFilterIds: number;
    readonly responseByteLimit: number;
    readonly gaps: readonly string[];
  };
  readonly vehicleProfiles: {
    readonly releaseStatus: ReleaseStatus;
    readonly authorization: string;
    readonly query: string;
    readonly visibility: string;
    readonly groupRelationships: string;
    readonly retrieval: 'stored';
    readonly selection: 'approved_source_vehicle_ids';
    readonly maxPageSize: number;
    readonly responseByteLimit: number;
    readonly gaps: readonly string[];
  };
  readonly vehicleMetadata: {
    readonly releaseStatus: ReleaseStatus;
    readonly enablement: string;
    readonly availability: string;
    readonly interpretation: string;
    readonly fields: readonly VehicleMetadataKey[];
  };
  readonly groupInventory: {
    readonly releaseStatus: ReleaseStatus;
    readonly enablement: string;
    readonly selection: 'explicit_approved_ids';
    readonly maxGroupIds: number;
    readonly parentResolution: 'approved_groups_only';
  };
  readonly groupDirectory: {
    readonly releaseStatus: ReleaseStatus;
    readonly enablement: string;
    readonly query: string;
    readonly identity: string;
    readonly pagination: string;
    readonly relations: string;
    readonly consistency: 'not_transactional';
    readonly deletionEvidence: 'none';
    readonly maxRows: number;
    readonly maxReferences: number;
    readonly projectedByteLimit: number;
    readonly responseByteLimit: number;
    readonly gaps: readonly string[];
  };
  readonly faults?: { readonly releaseStatus: ReleaseStatus } & Readonly<Record<string, unknown>>;
  readonly limits?: Readonly<Record<string, unknown>>;
}

/** The derivation of a vehicle status the provider does not report (libs/domain DERIVATION_CODES; decision 0011). */
const ROSTER_DERIVATION: DerivationCode = 'derived_from_roster';

const FIELD_TEXT: Record<TelemetryMetric, Pick<CatalogField, 'label' | 'unit' | 'kind' | 'valueKey'>> = {
  location: { label: 'Location (WGS84)', unit: 'degrees', kind: 'position', valueKey: 'latitude,longitude' },
  odometer: { label: 'Odometer', unit: 'meters', kind: 'counter', valueKey: 'meters' },
  engineHours: { label: 'Engine runtime', unit: 'seconds', kind: 'counter', valueKey: 'seconds' },
  totalIdleTime: { label: 'Cumulative idle time', unit: 'seconds', kind: 'counter', valueKey: 'seconds' },
  speed: { label: 'Speed', unit: 'meters_per_second', kind: 'gauge', valueKey: 'value' },
  heading: { label: 'Heading', unit: 'degrees', kind: 'gauge', valueKey: 'value' },
  fuelPercent: { label: 'Fuel level', unit: 'percent', kind: 'gauge', valueKey: 'value' },
  batteryVoltage: { label: 'Battery voltage', unit: 'volts', kind: 'gauge', valueKey: 'value' },
  engineState: { label: 'Engine state (on, off, idle)', kind: 'state', valueKey: 'state' },
};

export function catalogFields(support?: ProviderFieldSupport): CatalogField[] {
  return TELEMETRY_METRICS.map((name) => ({
    name,
    ...FIELD_TEXT[name],
    freshnessSeconds: TELEMETRY_FRESHNESS_S[name],
    availability: (CORE_TELEMETRY_METRICS as readonly string[]).includes(name) ? 'core' : 'extended_opt_in',
    ...(support ? { providers: Object.fromEntries(Object.entries(support).map(([provider, fields]) => [provider, fields[`telemetry.${name}`] ?? 'unsupported'])) } : {}),
  }));
}

/** The release status of an area, from its endpoints' (see ReleaseStatus). */
export function areaReleaseStatus(area: EndpointArea, endpoints: Readonly<Record<string, CatalogEndpoint>> = CATALOG_ENDPOINTS): ReleaseStatus {
  const statuses = Object.values(endpoints)
    .filter((e) => e.area === area)
    .map((e) => e.releaseStatus);
  if (statuses.length === 0) throw new Error(`no endpoint belongs to the area ${area}`);
  if (statuses.every((s) => s === 'preview')) return 'preview';
  return statuses.includes('preview') ? 'partial' : 'not_released';
}

/** One roadmap entry per area not wholly served: its status and the operations not served yet. */
export function unreleasedAreas(endpoints: Readonly<Record<string, CatalogEndpoint>> = CATALOG_ENDPOINTS): Record<string, string> {
  const entries: [string, string][] = [];
  for (const area of ENDPOINT_AREAS) {
    const missing = Object.entries(endpoints).filter(([, e]) => e.area === area && e.releaseStatus !== 'preview');
    if (missing.length > 0) entries.push([area, `${areaReleaseStatus(area, endpoints)}: ${missing.map(([key]) => key).join(', ')}`]);
  }
  return Object.fromEntries(entries);
}

export interface CatalogOptions {
  readonly reviewedAt?: string;
  /** The providers' capability fields: each telemetry field then says its support per provider. */
  readonly providerSupport?: ProviderFieldSupport;
}

export function buildCatalog(opts: CatalogOptions = {}): Catalog {
  return {
    apiVersion: API_VERSION,
    catalogVersion: CATALOG_VERSION,
    releaseStatus: 'preview',
    reviewedAt: opts.reviewedAt ?? CATALOG_REVIEWED_AT,
    fields: catalogFields(opts.providerSupport),
    endpoints: CATALOG_ENDPOINTS,
    roadmap: {
      ...unreleasedAreas(),
      providerRequests: 'not_implemented: historical_files and provision_credentials stay empty (maxItems 0)',
      syncIssues: 'not_implemented: issues are always empty in this increment',
      fractionalDaysSelector: 'pending_precedence_validation: combining selectors is refused',
      webhooks: 'not_offered: the fault-events pull feed is the event interface',
      requestIdempotency: 'not_offered: reconcile through sync history before retrying a lost POST',
      signalLimitedActivation: 'pending_review: collection stays disabled after a connect session until a reviewed policy is installed',
    },
    enrichment: {
      releaseStatus: areaReleaseStatus('enrichment'),
      collection: 'background_after_vehicle_sync_on_new_or_changed_vin_cached',
      enablement: 'identity_offline_always_vendor_products_by_deployment_license',
      measurements: 'provider_text_not_normalized',
      images: 'vin_listing_urls',
      products: ENRICHMENT_PRODUCTS,
    },
    driverDirectory: {
      releaseStatus: areaReleaseStatus('drivers'),
      authorization: 'consumer_key_with_connection_grant',
      retrieval: 'stored',
      identity: 'drv_id_stable_per_connection_and_source_id',
      modification: 'read_only',
      groupRelations: 'approved_groups_only_or_credential_visible_directory',
      membershipCapture: 'captured_with_last_complete_directory',
      gaps: ['middle names are rarely reported by providers', 'email and license fields depend on the provider account'],
    },
    tripHistory: {
      releaseStatus: areaReleaseStatus('trips'),
      authorization: 'consumer_key_with_connection_grant',
      coverage: 'completed_trips_started_in_window',
      retrieval: 'stored',
      units: { distance: 'kilometers', duration: 'milliseconds' },
      maxPageSize: TRIP_PAGE_MAX,
      maxFilterIds: TRIP_FILTER_IDS,
      responseByteLimit: RESPONSE_BYTE_LIMIT,
      gaps: [
        'completeness is not established',
        'trip distance is omitted when missing or invalid',
        'GPS distance and odometer difference are distinct source bases',
        `trips that started more than ${HISTORY_RETENTION_DAYS} days ago are no longer stored (retention): a window reaching further back holds only the trips kept`,
      ],
    },
    vehicleProfiles: {
      releaseStatus: areaReleaseStatus('vehicles'),
      authorization: 'consumer_key_with_connection_grant',
      query: 'cursor_pagination',
      visibility: 'include_exclude_and_status_filters',
      groupRelationships: 'credential_visible_reported_memberships',
      retrieval: 'stored',
      selection: 'approved_source_vehicle_ids',
      maxPageSize: PROFILE_PAGE_MAX,
      responseByteLimit: RESPONSE_BYTE_LIMIT,
      gaps: [
        'completeness is not established',
        'only approved source vehicles are published',
        `status is ${ROSTER_DERIVATION} where the provider reports none (Samsara): active while the last complete roster pass lists the vehicle, inactive once a complete pass no longer does, and not a profile until one lists it; the metadata status cell names it in its source`,
      ],
    },
    vehicleMetadata: {
      releaseStatus: areaReleaseStatus('vehicleMetadata'),
      enablement: 'opt_in_per_connection_default_disabled',
      availability: 'per_field_cells_available_missing_unsupported_invalid',
      interpretation: 'source_reported_not_verified',
      fields: VEHICLE_METADATA_KEYS,
    },
    groupInventory: {
      releaseStatus: areaReleaseStatus('groups'),
      enablement: 'opt_in_per_connection_default_disabled',
      selection: 'explicit_approved_ids',
      maxGroupIds: GROUP_INVENTORY_MAX_IDS,
      parentResolution: 'approved_groups_only',
    },
    groupDirectory: {
      releaseStatus: areaReleaseStatus('groups'),
      enablement: 'operator_gated_per_connection',
      query: 'cursor_pagination',
      identity: 'group_id_stable_per_connection_and_source_id',
      pagination: 'opaque_cursor_bound_to_grant_and_publication',
      relations: 'parent_by_group_id',
      consistency: 'not_transactional',
      deletionEvidence: 'none',
      maxRows: GROUP_DIRECTORY.maxRows,
      maxReferences: GROUP_DIRECTORY.maxReferences,
      projectedByteLimit: GROUP_DIRECTORY.projectedByteLimit,
      responseByteLimit: RESPONSE_BYTE_LIMIT,
      gaps: ['deleted groups are not reported', 'the directory is not a transactional snapshot'],
    },
    faults: {
      releaseStatus: areaReleaseStatus('faults'),
      open: 'current_open_fault_occurrences',
      feed: 'durable_cursor_opened_and_cleared_transitions',
      kinds: ['opened', 'cleared'],
      bootstrap: 'faults open when collection starts are flagged bootstrap',
      models: ['complete_snapshot', 'explicit_records'],
      modelRules: {
        complete_snapshot: 'opens when a key appears in a complete snapshot; clears when absent from a later complete snapshot; an incomplete or failed snapshot clears nothing',
        explicit_records: 'opens on the first record of a key; a repeat keeps it open; clears on dismissal or after 7 days without a repeat',
      },
      reopen: 'a re-opened fault is a new occurrence',
      ordering: 'sequence strictly increasing per connection in commit order',
      cursor: 'durable_signed_cursor_bound_to_connection_no_expiry',
      retentionDays: FAULT_EVENT_RETENTION_DAYS,
      beyondRetention: '400 cursor_beyond_retention',
      visibility: 'faults and events of hidden vehicles are left out',
      maxPageSize: FAULTS_PAGE.max,
      maxEventPageSize: FAULT_EVENTS_PAGE.max,
    },
    limits: LIMITS,
  };
}
