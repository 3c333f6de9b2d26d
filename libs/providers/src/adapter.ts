/**
 * The one interface every provider adapter implements. Collectors (sync-orchestrator) and the
 * on-demand refresh (telemetry-ingest) call only this; the provider's dialect — auth, envelopes,
 * pagination, units, quirks — stays inside `<provider>/`.
 *
 * Paging contract: each call returns one provider page mapped to normalized records plus an opaque
 * `next` cursor (null when done). The cursor is the adapter's own (provider cursor, page number or
 * Geotab feed version) and is safe to persist and resume from, so a collector that dies between
 * pages continues where it stopped.
 */
import type { DriverRecord, FaultRecord, FaultSnapshot, GroupRecord, Observation, Provider, TelemetryMetric, TripRecord, VehicleRecord } from '@switchyard/domain';
import type { ProviderCapabilities } from './capabilities/index.js';
import type { EgressPolicy } from './http/egress.js';
import type { ProviderCallObserver } from './http/provider-call-observer.js';
import type { RetryPolicy } from './http/provider-http-client.js';
import type { Clock, RequestBudget } from './http/request-budget.js';

export interface ProviderCredentials {
  samsara: { apiToken: string };
  /** An API key (`X-Api-Key`), or an OAuth access token (`Authorization: Bearer`; motive.md §1). */
  motive: { apiKey: string } | { accessToken: string };
  geotab: { database: string; userName: string; password: string };
}

export interface AdapterOptions<P extends Provider = Provider> {
  provider: P;
  /** The provider's API base URL (real, or a simulator's in the sandbox and in tests). */
  baseUrl: string;
  credentials: ProviderCredentials[P];
  /** Shared by all work on this provider account. */
  budget?: RequestBudget;
  clock?: Clock;
  timeoutMs?: number;
  retry?: Partial<RetryPolicy>;
  random?: () => number;
  /**
   * Where requests may go: production callers pass `egressPolicyFor(provider, environment)`
   * (allow-listed https provider hosts on public addresses); without one the adapter may reach any
   * http(s) URL, which is for simulators and tests only.
   */
  egress?: EgressPolicy;
  /** Sees every HTTP attempt to the provider (spans, metrics); never given a credential. */
  observer?: ProviderCallObserver;
}

/** A record the adapter read but left out of `items` (a malformed record, a trailer, …), or a value it left out of a record it kept (a Geotab trip's implausible distance), with the reason. */
export interface SkippedRecord {
  /** The provider's id of the record, when it had a readable one. */
  readonly sourceId: string | null;
  readonly reason: string;
}

export interface Page<T> {
  readonly items: readonly T[];
  readonly next: string | null;
  /** Records of this page reported instead of mapped; absent when there are none. */
  readonly skipped?: readonly SkippedRecord[];
}

export interface TimeWindow {
  /** RFC 3339, inclusive. */
  readonly from: string;
  /** RFC 3339, exclusive. */
  readonly to: string;
}

export interface ProviderAdapter {
  readonly provider: Provider;
  readonly capabilities: ProviderCapabilities;
  vehicles(cursor?: string | null): Promise<Page<VehicleRecord>>;
  drivers(cursor?: string | null): Promise<Page<DriverRecord>>;
  groups(cursor?: string | null): Promise<Page<GroupRecord>>;
  /** Completed trips that started inside the window. */
  trips(query: TimeWindow & { vehicleSourceIds?: readonly string[]; cursor?: string | null }): Promise<Page<TripRecord>>;
  /** The latest reading per vehicle and metric the provider has. */
  latestTelemetry(query: { metrics: readonly TelemetryMetric[]; vehicleSourceIds?: readonly string[]; cursor?: string | null }): Promise<Page<Observation>>;
  /** Observations inside the window. */
  telemetryHistory(query: TimeWindow & { metrics: readonly TelemetryMetric[]; vehicleSourceIds: readonly string[]; cursor?: string | null }): Promise<Page<Observation>>;
  /** `complete_snapshot` providers return snapshots, `explicit_records` providers return records. */
  faults(query: Partial<TimeWindow> & { vehicleSourceIds?: readonly string[]; cursor?: string | null }): Promise<Page<FaultSnapshot | FaultRecord>>;
}
