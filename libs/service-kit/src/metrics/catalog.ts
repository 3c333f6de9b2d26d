/**
 * Every Prometheus metric family a Switchyard service exports, written down once (issue 27; decision
 * 0041): name, type, help, label names and buckets. A service creates a family only through
 * ServiceMetrics (service-metrics.ts) by its key here, so the names the alert rules and the
 * dashboard use (deploy/prometheus, deploy/grafana) are checked against this table and against what
 * the running services serve (system-tests metrics-catalog.int-spec.ts).
 *
 * Conventions (prometheus.io/docs/practices/naming): snake_case, the `switchyard_` prefix (the
 * gateway's two HTTP families keep their pre-issue-27 names), base units in the name (`_seconds`,
 * `_bytes`, `_messages`), `_total` on counters; every series also carries `service` (the registry's
 * default label).
 *
 * Cardinality: labels are closed sets — route templates, RPC subjects, durable names, provider
 * endpoints as templates, reason and error codes from the code's own lists, record kinds, signals.
 * No connection, vehicle or sync id is a label, except `connection_id` on the freshness gauges,
 * which the issue asks per connection: those are bounded by FRESHNESS_METRICS_MAX_CONNECTIONS
 * (telemetry-ingest; default 50 connections × 10 signals × 6 series ≤ 3,000), and the alert reads
 * the fleet-wide `switchyard_freshness_signals_over_bound` instead.
 */

export type MetricType = 'counter' | 'gauge' | 'histogram';

export interface MetricFamilySpec {
  readonly type: MetricType;
  readonly name: string;
  readonly help: string;
  readonly labelNames: readonly string[];
  /** Histograms only: upper bounds in the family's unit. */
  readonly buckets?: readonly number[];
}

/** Request latencies: 1 ms to 10 s (an RPC deadline is 5 s by default). */
const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10] as const;
/** Provider calls: 10 ms to 60 s (a provider timeout is 30 s by default). */
const PROVIDER_BUCKETS = [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60] as const;
/** Commit − fetch of a batch: the bound is 2 s at p95. */
const PIPELINE_LAG_BUCKETS = [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60, 300, 900] as const;
/** fetchedAt − observedAt: seconds (a streaming provider) to a day (a vehicle parked overnight). */
const PROVIDER_LAG_BUCKETS = [1, 5, 15, 30, 60, 120, 300, 600, 1800, 3600, 21600, 86400] as const;

const counter = (name: string, help: string, labelNames: readonly string[]) => ({ type: 'counter' as const, name, help, labelNames });
const gauge = (name: string, help: string, labelNames: readonly string[]) => ({ type: 'gauge' as const, name, help, labelNames });
const histogram = (name: string, help: string, labelNames: readonly string[], buckets: readonly number[]) => ({ type: 'histogram' as const, name, help, labelNames, buckets });

export const METRIC_FAMILIES = {
  // HTTP, gateway (RED per route: rate and errors by status, duration).
  httpRequests: counter('http_requests_total', 'HTTP requests answered, by method, route template and status.', ['method', 'route', 'status']),
  httpRequestDuration: histogram('http_request_duration_seconds', 'Time to answer an HTTP request, by method and route template.', ['method', 'route'], LATENCY_BUCKETS),
  rateLimited: counter('switchyard_rate_limited_requests_total', 'Requests refused with 429 rate_limited, by the limit that refused them (request_rate, refresh, connect_session).', ['limit']),

  // Request/reply over NATS (RED per RPC subject, on both ends).
  rpcServerRequests: counter('switchyard_rpc_server_requests_total', 'Requests this service answered, by RPC subject and outcome (ok, or the RpcError code).', ['subject', 'outcome']),
  rpcServerDuration: histogram('switchyard_rpc_server_duration_seconds', 'Time this service spent answering a request, by RPC subject.', ['subject'], LATENCY_BUCKETS),
  rpcClientRequests: counter('switchyard_rpc_client_requests_total', 'Requests this service sent, by RPC subject and outcome (ok, the RpcError code, timeout, or the bus reason it was unavailable).', ['subject', 'outcome']),
  rpcClientDuration: histogram('switchyard_rpc_client_duration_seconds', 'Time from sending a request to its reply or failure, by RPC subject.', ['subject'], LATENCY_BUCKETS),

  // Durable consumers (per durable; a durable is shared by every replica of its service).
  consumerDelivered: counter('switchyard_consumer_delivered_total', 'Messages delivered to this process by a durable consumer (redeliveries included).', ['durable']),
  consumerRedelivered: counter('switchyard_consumer_redelivered_total', 'Deliveries that were not the first of their message (after a nak, an ack-wait expiry or a crash).', ['durable']),
  consumerAcked: counter('switchyard_consumer_acked_total', 'Deliveries acknowledged after their handler returned.', ['durable']),
  consumerNaks: counter('switchyard_consumer_naks_total', 'Deliveries given back for a later retry (handler failed or asked to retry).', ['durable']),
  consumerAckWaitExpiries: counter(
    'switchyard_consumer_ack_wait_expiries_total',
    'Deliveries this process settled after their ack wait had run out, or abandoned at a drain deadline: the server redelivers them. A crashed process counts nothing; redelivered − naks shows those too.',
    ['durable'],
  ),
  consumerHandlingDuration: histogram('switchyard_consumer_handling_duration_seconds', 'Time from a delivery to its settlement, by durable.', ['durable'], LATENCY_BUCKETS),
  consumerPending: gauge('switchyard_consumer_pending_messages', 'Messages of a durable not yet delivered (JetStream num_pending), read from the server at scrape; every replica reports the same figure.', ['durable']),
  consumerAckPending: gauge('switchyard_consumer_ack_pending_messages', 'Messages of a durable delivered and not yet acknowledged (JetStream num_ack_pending), read at scrape.', ['durable']),
  deadLetters: counter('switchyard_dead_letters_total', 'Messages dead-lettered by a durable consumer, by reason (schema_invalid, max_deliveries, or the handler\'s PoisonMessage reason).', ['durable', 'reason']),

  // Provider HTTP (every attempt the provider client makes, retries included).
  providerRequests: counter(
    'switchyard_provider_requests_total',
    'HTTP requests to a provider, each attempt counted, by provider, endpoint template and outcome (ok, throttled = 429, client_error, server_error, timeout, network_error, refused, invalid_response).',
    ['provider', 'endpoint', 'outcome'],
  ),
  providerRequestDuration: histogram('switchyard_provider_request_duration_seconds', 'Time of one provider HTTP attempt, by provider and endpoint template.', ['provider', 'endpoint'], PROVIDER_BUCKETS),

  // Syncs (sync-orchestrator).
  syncs: gauge('switchyard_syncs', 'Syncs the orchestrator holds, by origin (api, scheduled) and status, read from its schema at scrape.', ['origin', 'status']),
  syncUnits: gauge('switchyard_sync_units', 'Units of open syncs by state (queued, leased — held or paced —, awaiting_receipts, receipted), read at scrape.', ['state']),
  syncsFinished: counter('switchyard_syncs_finished_total', 'Syncs that reached completed or failed, by origin, status and failure reason (none when completed).', ['origin', 'status', 'reason']),

  // Ingest (directory, telemetry-ingest, fault-feed).
  ingestRecords: counter('switchyard_ingest_records_total', 'Records committed by an ingest context, by batch kind; rate() is rows per second.', ['kind']),
  ingestBatches: counter('switchyard_ingest_batches_total', 'Ingest batches handled, by kind and outcome (committed, rejected, duplicate).', ['kind', 'outcome']),
  ingestPipelineLag: histogram('switchyard_ingest_pipeline_lag_seconds', 'Pipeline lag: a batch\'s commit time minus its fetchedAt (collector fetch → owning context commit), by kind.', ['kind'], PIPELINE_LAG_BUCKETS),
  telemetryProviderLag: histogram('switchyard_telemetry_provider_lag_seconds', 'Provider lag: fetchedAt − observedAt of each committed observation, by signal.', ['signal'], PROVIDER_LAG_BUCKETS),

  // Data freshness (telemetry-ingest, from its schema at scrape; per connection, bounded).
  freshnessDataAge: gauge('switchyard_freshness_data_age_seconds', 'Data age now − observedAt of the newest stored reading per approved vehicle, by connection and signal; quantile 0 is the newest vehicle, 1 the oldest.', ['connection_id', 'provider', 'signal', 'quantile']),
  freshnessProviderLag: gauge('switchyard_freshness_provider_lag_seconds', 'Provider lag (fetchedAt − observedAt) of the readings stored in the freshness window, by connection and signal.', ['connection_id', 'provider', 'signal', 'quantile']),
  freshnessPipelineLag: gauge('switchyard_freshness_pipeline_lag_seconds', 'Pipeline lag (commit − fetchedAt) of the readings stored in the freshness window, by connection and signal.', ['connection_id', 'provider', 'signal', 'quantile']),
  freshnessSampleInterval: gauge('switchyard_freshness_sample_interval_seconds', 'Median gap between consecutive readings of one vehicle in the freshness window, by connection and signal.', ['connection_id', 'provider', 'signal']),
  freshnessCoverage: gauge('switchyard_freshness_coverage_ratio', 'Approved vehicles with a reading observed in the last collection interval ÷ approved vehicles, by connection and signal.', ['connection_id', 'provider', 'signal']),
  freshnessOverBound: gauge('switchyard_freshness_signals_over_bound', 'Connections whose data age p95 of a signal is over its bound (collection interval + 60 s), by signal; every connection counts, also past the per-connection series cap.', ['signal']),
  freshnessConnections: gauge('switchyard_freshness_connections', 'Connections with a freshness figure, and how many of them have per-connection series (exported) or not (over FRESHNESS_METRICS_MAX_CONNECTIONS).', ['series']),

  // Outboxes (gateway configuration events, directory VIN and visibility events, fault transitions).
  outboxBacklog: gauge('switchyard_outbox_backlog_messages', 'Outbox rows committed and not yet published, by outbox, read at scrape.', ['outbox']),

  // PostgreSQL pool of this service.
  dbPoolConnections: gauge('switchyard_db_pool_connections', 'Pooled PostgreSQL connections of this service by state (in_use, idle).', ['state']),
  dbPoolWaiting: gauge('switchyard_db_pool_waiting_requests', 'Queries waiting for a free pooled PostgreSQL connection.', []),
  dbPoolMax: gauge('switchyard_db_pool_max_connections', 'Most PostgreSQL connections the pool opens.', []),

  // The metrics machinery itself.
  collectFailures: counter('switchyard_metrics_collect_failures_total', 'Scrape-time reads that failed (their figures are then absent from the scrape, never zero), by collector.', ['collector']),
} as const satisfies Record<string, MetricFamilySpec>;

export type MetricKey = keyof typeof METRIC_FAMILIES;
type FamiliesOf<T extends MetricType> = { [K in MetricKey]: (typeof METRIC_FAMILIES)[K]['type'] extends T ? K : never }[MetricKey];
export type CounterKey = FamiliesOf<'counter'>;
export type GaugeKey = FamiliesOf<'gauge'>;
export type HistogramKey = FamiliesOf<'histogram'>;
