/**
 * Data freshness (issue 27 item 3; decision 0041): the ConnectionFreshness read of one connection
 * (`telemetry.read.freshness`, schemas/telemetry-freshness.v1.ts) and the figures the metrics take
 * (freshness-metrics.ts), from the one statement of freshness.repository.ts.
 *
 * Decisions:
 * - the signals are the ones the connection collects: the telemetry metrics it covers (libs/domain
 *   coverage, the rule of the collectors and of the telemetry read) and `faults` when selected
 *   (faultsSelected) — a metric it does not collect has no figure at all, as the telemetry read
 *   leaves it out;
 * - the vehicles are its approved ones (their `vcl_` ids minted as the directory mints them) that
 *   the reads show (the one visibility rule); a vehicle no longer approved is not collected, so it
 *   does not count;
 * - a figure that cannot be computed is an UnknownFigure with its reason, never a zero; a signal
 *   with no stored reading is `missing` (`no_readings`) and has no age; `stale` when the data age
 *   p95 is over the bound (collection interval + 60 s);
 * - fault observations keep the time up to which a vehicle's faults were read, not a fetch or
 *   commit time per reading: their lags and sample interval are `unsupported`.
 */
import { coveredMetrics, faultsSelected, toWireDateTime, vehicleId } from '@switchyard/domain';
import { FRESHNESS_SIGNALS, RpcError, type ConnectionConfigV1, type ConnectionFreshnessReplyV1, type ConnectionFreshnessV1, type FreshnessSignal, type SignalFreshnessV1 } from '@switchyard/messaging';
import type { Em, Orm } from '@switchyard/persistence';
import { capabilitiesFor } from '@switchyard/providers';
import { ConnectionConfigStore, VehicleVisibilityStore } from '@switchyard/service-kit';
import { dataAgeBoundMs, type FreshnessSettings } from '../config.js';
import { FreshnessRepository, type FreshnessRow, type FreshnessSignalRef, type FreshnessVehicle } from '../db/repositories/freshness.repository.js';

type Unknown = Extract<SignalFreshnessV1['dataAge'], { status: 'missing' | 'unsupported' }>;
const missing = (reason: Unknown['reason']): Unknown => ({ status: 'missing', reason });
const UNSUPPORTED_FOR_FAULTS: Unknown = { status: 'unsupported', reason: 'not_kept_for_faults' };

/** Seconds with millisecond precision. */
const s = (value: number): number => Math.round(value * 1000) / 1000;

/** The signals `config` collects, in FRESHNESS_SIGNALS order. */
export function freshnessSignals(config: Pick<ConnectionConfigV1, 'provider' | 'selectedSignals' | 'optIns'>): FreshnessSignal[] {
  const coverage = { signals: config.selectedSignals, extendedTelemetry: config.optIns.extendedTelemetry, support: capabilitiesFor(config.provider).fields };
  return [...coveredMetrics(coverage), ...(faultsSelected(coverage) ? (['faults'] as const) : [])];
}

/** The repository's vehicles and signals of `configs`. */
export function freshnessScope(configs: readonly ConnectionConfigV1[]): { vehicles: FreshnessVehicle[]; signals: FreshnessSignalRef[] } {
  const vehicles: FreshnessVehicle[] = [];
  const signals: FreshnessSignalRef[] = [];
  for (const config of configs) {
    const { connectionId: c, provider } = config;
    for (const sourceId of config.approvedVehicleIds) vehicles.push({ c, v: vehicleId({ connectionId: c, provider, sourceId }), s: sourceId });
    for (const m of freshnessSignals(config)) signals.push({ c, m });
  }
  return { vehicles, signals };
}

/** One signal's figures from its row (see the header). */
export function signalFreshness(row: FreshnessRow, boundSeconds: number): SignalFreshnessV1 {
  const faults = row.signal === 'faults';
  const none = row.vehicles === 0 ? missing('no_vehicles') : undefined;
  const age = row.age;
  const dataAge: SignalFreshnessV1['dataAge'] =
    none ?? (age && row.with_reading > 0 ? { status: 'available', newestSeconds: s(age[0] ?? 0), p50Seconds: s(age[1] ?? 0), p95Seconds: s(age[2] ?? 0), maxSeconds: s(age[3] ?? 0), vehicles: row.with_reading } : missing('no_readings'));
  const windowed = (figure: () => SignalFreshnessV1['providerLag']): SignalFreshnessV1['providerLag'] => (faults ? UNSUPPORTED_FOR_FAULTS : (none ?? (row.readings === 0 ? missing('no_readings_in_window') : figure())));
  const providerLag = windowed(() => (row.provider_lag ? { status: 'available', p50Seconds: s(row.provider_lag[0] ?? 0), p95Seconds: s(row.provider_lag[1] ?? 0), readings: row.readings } : missing('no_readings_in_window')));
  const pipelineLag = windowed(() => (row.pipeline_lag && row.committed > 0 ? { status: 'available', p50Seconds: s(row.pipeline_lag[0] ?? 0), p95Seconds: s(row.pipeline_lag[1] ?? 0), readings: row.committed } : missing('commit_time_unknown')));
  const sampleInterval: SignalFreshnessV1['sampleInterval'] = faults
    ? UNSUPPORTED_FOR_FAULTS
    : (none ?? (row.readings === 0 ? missing('no_readings_in_window') : row.gaps > 0 && row.sample_interval !== null ? { status: 'available', medianSeconds: s(row.sample_interval), gaps: row.gaps } : missing('fewer_than_two_readings_per_vehicle')));
  const coverage: SignalFreshnessV1['coverage'] = none ?? { status: 'available', vehiclesReporting: row.reporting, vehicles: row.vehicles, ratio: Math.round((row.reporting / row.vehicles) * 10_000) / 10_000 };
  const status = dataAge.status !== 'available' ? 'missing' : dataAge.p95Seconds > boundSeconds ? 'stale' : 'available';
  const reason = status === 'available' ? null : status === 'stale' ? 'data_age_over_bound' : row.vehicles === 0 ? 'no_vehicles' : 'no_readings';
  return { signal: row.signal as FreshnessSignal, status, reason, newestObservedAt: row.newest, dataAge, providerLag, pipelineLag, sampleInterval, coverage };
}

export class FreshnessService {
  private readonly configs: ConnectionConfigStore;

  constructor(
    orm: Orm,
    private readonly settings: FreshnessSettings,
    private readonly repository = new FreshnessRepository(),
    private readonly now: () => number = Date.now,
  ) {
    this.configs = new ConnectionConfigStore(orm);
  }

  /** The figures of `configs` at `now` (the metrics' pass: no visibility rule, see freshness.repository.ts). */
  figures(em: Em, configs: readonly ConnectionConfigV1[], now: number, options: { window?: boolean; visibleFor?: string } = {}): Promise<FreshnessRow[]> {
    const scope = freshnessScope(configs);
    if (scope.signals.length === 0) return Promise.resolve([]);
    return this.repository.figures(em, {
      ...scope,
      now: new Date(now).toISOString(),
      reportingSince: new Date(now - this.settings.intervalMs).toISOString(),
      windowStart: new Date(now - this.settings.windowMs).toISOString(),
      ...options,
    });
  }

  async read(em: Em, connectionId: string): Promise<ConnectionFreshnessReplyV1> {
    const config = await this.configs.get(connectionId);
    if (!config) throw new RpcError('not_found', 'no such connection in this context');
    const now = this.now();
    const rows = (await this.figures(em, [config], now, { visibleFor: connectionId })).sort((a, b) => order(a.signal) - order(b.signal));
    const bound = dataAgeBoundMs(this.settings) / 1000;
    // Without a signal there is no row to carry the count: the visibility rule counts the vehicles itself.
    const vehicles = rows[0]?.vehicles ?? (await this.shownVehicles(em, config));
    const body: ConnectionFreshnessV1 = {
      connectionId,
      provider: config.provider,
      measuredAt: toWireDateTime(new Date(now).toISOString()),
      collectionIntervalSeconds: Math.round(this.settings.intervalMs / 1000),
      dataAgeBoundSeconds: Math.round(bound),
      window: { startTime: toWireDateTime(new Date(now - this.settings.windowMs).toISOString()), endTime: toWireDateTime(new Date(now).toISOString()) },
      vehicles,
      signals: rows.map((row) => signalFreshness(row, bound)),
      retrieval: 'stored',
    };
    // Sent as the JSON text of the public body (a framed reply): the gateway forwards it unparsed.
    return { meta: {}, body: JSON.stringify(body) };
  }

  private async shownVehicles(em: Em, config: ConnectionConfigV1): Promise<number> {
    const named = freshnessScope([config]).vehicles.map((v) => ({ vehicleId: v.v, sourceId: v.s }));
    return named.length === 0 ? 0 : (await new VehicleVisibilityStore().visible(em, config.connectionId, named)).size;
  }
}

const order = (signal: string): number => (FRESHNESS_SIGNALS as readonly string[]).indexOf(signal);
