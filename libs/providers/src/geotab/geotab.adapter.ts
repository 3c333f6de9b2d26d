/**
 * The Geotab ProviderAdapter: which MyGeotab calls serve each normalized read, and how they page.
 *
 * - vehicles / drivers: `GetFeed Device|User` from the cursor's `toVersion` (Geotab's own adapter
 *   caps these feeds at 5,000 per call); a page of `resultsLimit` rows means "call again".
 * - groups: one `Get Group` (the tree is small and only complete as a whole: parents are inverted
 *   from `children[]`).
 * - trips, telemetry history, windowed faults: `Get` with `search` dates, paged by time slices
 *   (geotab.cursor.ts) per device; several Gets of one slice go in one `ExecuteMultiCall`.
 * - latest telemetry: per device `Get DeviceStatusInfo` + `Get StatusData` at now with
 *   `resultsLimit: 1` per diagnostic (the value in effect, geotab.md §6.3), batched per page of
 *   devices (from `GetFeed Device`, or the caller's list) in one ExecuteMultiCall.
 * - faults without a window: `GetFeed FaultData` (the native incremental feed).
 * Records are validated one by one (parseGeotabRows): a malformed record is reported in the page's
 * `skipped` with its id and reason and the page still succeeds; a result whose every record fails,
 * or whose structure changed, is `provider_response_changed`.
 * Invariant: every page is one resumable unit — the returned cursor is enough to continue after a
 * restart, and no row is emitted from a slice that may have been cut by `resultsLimit`.
 */
import type { FaultRecord, LatLon, Observation, TelemetryMetric } from '@switchyard/domain';
import { z } from 'zod';
import type { AdapterOptions, Page, ProviderAdapter, SkippedRecord } from '../adapter.js';
import { capabilitiesFor } from '../capabilities/index.js';
import { idAt, PageRecords } from '../http/parse.js';
import { systemClock } from '../http/request-budget.js';
import { GeotabClient, parseGeotabRows, type GeotabCall, type GeotabRows } from './geotab.client.js';
import { decodeCursor, encodeCursor, isoMs, parseWindowMs, readSlice } from './geotab.cursor.js';
import { mapFault } from './geotab.faults.js';
import { activeDateMs, isTrailerDevice, mapDevice, mapGroups, mapTrips, mapUser, TRAILER_SKIP_REASON, type MapContext } from './geotab.mapper.js';
import {
  deviceSchema,
  deviceStatusInfoSchema,
  diagnosticSchema,
  failureModeSchema,
  faultDataSchema,
  GEOTAB_DIAGNOSTICS,
  groupSchema,
  logRecordSchema,
  statusDataSchema,
  tripSchema,
  userSchema,
  type GeotabDiagnostic,
  type GeotabFailureMode,
  type GeotabFaultData,
} from './geotab.schemas.js';
import { deviceStatusObservations, DIAGNOSTIC_FOR_METRIC, engineStateHistory, logRecordObservations, statusDataObservation } from './geotab.telemetry.js';

export interface GeotabPageSizes {
  /** GetFeed Device / User per call (Geotab's adapter uses 5,000). */
  entityFeed: number;
  /** GetFeed FaultData per call (the 50,000 cap). */
  faultFeed: number;
  /** resultsLimit of each windowed Get (trips, history, windowed faults). */
  windowed: number;
  /** Devices per latest-telemetry page (each costs up to 6 calls inside one ExecuteMultiCall). */
  latestDevices: number;
}

export const DEFAULT_GEOTAB_PAGE_SIZES: GeotabPageSizes = { entityFeed: 5_000, faultFeed: 50_000, windowed: 5_000, latestDevices: 20 };

export interface GeotabAdapterOptions extends AdapterOptions<'geotab'> {
  pageSizes?: Partial<GeotabPageSizes>;
}

/** Calls per ExecuteMultiCall request; larger batches are split (the server's cap is unpublished). */
const MULTICALL_BATCH = 100;
/** A trip's start position is the first GPS record within this long after `start`. */
const START_FIX_WINDOW_MS = 10 * 60_000;

export function createGeotabAdapter(options: GeotabAdapterOptions): ProviderAdapter {
  return new GeotabAdapter(options);
}

class GeotabAdapter implements ProviderAdapter {
  readonly provider = 'geotab' as const;
  readonly capabilities = capabilitiesFor('geotab');
  private readonly client: GeotabClient;
  private readonly clock;
  private readonly sizes: GeotabPageSizes;
  private readonly diagnostics = new Map<string, GeotabDiagnostic | null>();
  private readonly failureModes = new Map<string, GeotabFailureMode | null>();

  constructor(options: GeotabAdapterOptions) {
    this.clock = options.clock ?? systemClock;
    this.sizes = { ...DEFAULT_GEOTAB_PAGE_SIZES, ...options.pageSizes };
    const { baseUrl, credentials, budget, clock, timeoutMs, retry, random, egress, observer } = options;
    this.client = new GeotabClient({ baseUrl, credentials, budget, clock, timeoutMs, retry, random, egress, observer });
  }

  private context(): MapContext {
    const nowMs = this.clock.now();
    return { nowMs, fetchedAt: isoMs(nowMs) };
  }

  async vehicles(cursor?: string | null): Promise<Page<ReturnType<typeof mapDevice>>> {
    const from = decodeCursor(cursor, 'feed');
    const page = await this.client.getFeedRows('Device', deviceSchema, { fromVersion: from?.v, resultsLimit: this.sizes.entityFeed });
    const ctx = this.context();
    const devices = latestById(page.data, (d) => d.id);
    const trailers = devices.filter(isTrailerDevice).map((d) => ({ sourceId: d.id, reason: TRAILER_SKIP_REASON }));
    return withSkipped(
      devices.filter((d) => !isTrailerDevice(d)).map((d) => mapDevice(d, ctx)),
      this.feedNext(page, this.sizes.entityFeed),
      [...page.skipped, ...trailers],
    );
  }

  async drivers(cursor?: string | null): Promise<Page<NonNullable<ReturnType<typeof mapUser>>>> {
    const from = decodeCursor(cursor, 'feed');
    const page = await this.client.getFeedRows('User', userSchema, { fromVersion: from?.v, resultsLimit: this.sizes.entityFeed });
    const ctx = this.context();
    const items = latestById(page.data, (u) => u.id).flatMap((u) => mapUser(u, ctx) ?? []);
    return withSkipped(items, this.feedNext(page, this.sizes.entityFeed), page.skipped);
  }

  async groups(): Promise<Page<ReturnType<typeof mapGroups>[number]>> {
    const groups = await this.client.getRows('Group', groupSchema);
    return withSkipped(mapGroups(groups.data, this.context()), null, groups.skipped);
  }

  async trips(query: Parameters<ProviderAdapter['trips']>[0]): Promise<Page<ReturnType<typeof mapTrips>[number]>> {
    const { fromMs, toMs } = parseWindowMs(query.from, query.to, this.clock.now());
    const devices = query.vehicleSourceIds?.length ? query.vehicleSourceIds : [null];
    const limit = this.sizes.windowed;
    const slice = await readSlice({ fromMs, toMs, devices }, decodeCursor(query.cursor, 'slice'), async (device, startMs, endMs) => {
      // includeOverlappedTrips so a trip that starts in the slice and ends after it is returned
      // whatever the server's date semantics; the slice then keeps trips by `start` only.
      const search = { fromDate: isoMs(startMs), toDate: isoMs(endMs), includeOverlappedTrips: true, ...(device ? { deviceSearch: { id: device } } : {}) };
      const rows = await this.client.getRows('Trip', tripSchema, { search, resultsLimit: limit });
      return { rows: rows.data.filter((t) => inSlice(t.start, startMs, endMs)), full: rows.read >= limit, skipped: rows.skipped };
    });
    const trips = latestById(slice.rows, (t) => t.id);
    const ctx = this.context();
    const hints = await this.tripStartHints(trips);
    const skipped = [...slice.skipped];
    return withSkipped(mapTrips(trips, ctx, hints, (r) => skipped.push(r)), slice.next, skipped);
  }

  /** First LogRecord at or after each trip's start, for trips whose previous trip is not in the page. */
  private async tripStartHints(trips: readonly z.output<typeof tripSchema>[]): Promise<Map<string, LatLon>> {
    const firstOfDevice = new Map<string, z.output<typeof tripSchema>>();
    for (const trip of [...trips].sort((a, b) => Date.parse(a.start) - Date.parse(b.start))) if (!firstOfDevice.has(trip.device)) firstOfDevice.set(trip.device, trip);
    const needing = [...firstOfDevice.values()];
    const calls = needing.map((t) => getCall('LogRecord', { deviceSearch: { id: t.device }, fromDate: t.start, toDate: isoMs(Date.parse(t.start) + START_FIX_WINDOW_MS) }, 1));
    const results = await this.multi(calls);
    const hints = new Map<string, LatLon>();
    needing.forEach((trip, n) => {
      // A malformed record here only costs the hint (the start location stays missing, with its reason).
      const first = parseGeotabRows(logRecordSchema, results[n], 'geotab:Get:LogRecord', { page: new PageRecords() }).data[0];
      const obs = first ? logRecordObservations(first, new Set(['location']), '')[0] : undefined;
      if (obs?.metric === 'location') hints.set(trip.id, obs.value);
    });
    return hints;
  }

  async latestTelemetry(query: Parameters<ProviderAdapter['latestTelemetry']>[0]): Promise<Page<Observation>> {
    const metrics = new Set(query.metrics);
    const size = this.sizes.latestDevices;
    let devices: string[];
    let next: string | null;
    const skipped: SkippedRecord[] = [];
    if (query.vehicleSourceIds?.length) {
      const at = decodeCursor(query.cursor, 'offset')?.o ?? 0;
      devices = query.vehicleSourceIds.slice(at, at + size);
      next = at + size < query.vehicleSourceIds.length ? encodeCursor({ k: 'offset', o: at + size }) : null;
    } else {
      // The device list pages through the Device feed, so a page is resumable by version.
      const from = decodeCursor(query.cursor, 'feed');
      const page = await this.client.getFeedRows('Device', deviceSchema, { fromVersion: from?.v, resultsLimit: size });
      const nowMs = this.clock.now();
      // An unreadable activeTo keeps the device (its readings are not dropped on a date we cannot read).
      devices = latestById(page.data, (d) => d.id).filter((d) => !d.activeTo || (activeDateMs(d.activeTo) ?? Number.POSITIVE_INFINITY) > nowMs).map((d) => d.id);
      skipped.push(...page.skipped);
      next = this.feedNext(page, size);
    }
    const now = isoMs(this.clock.now());
    const wantsStatus = ['location', 'speed', 'heading', 'engineState'].some((m) => metrics.has(m as TelemetryMetric));
    const diagnostics = [...metrics].flatMap((m) => DIAGNOSTIC_FOR_METRIC[m] ?? []);
    const calls: GeotabCall[] = [];
    for (const id of devices) {
      if (wantsStatus) calls.push(getCall('DeviceStatusInfo', { deviceSearch: { id } }));
      for (const diagnostic of diagnostics) calls.push(getCall('StatusData', { deviceSearch: { id }, diagnosticSearch: { id: diagnostic }, fromDate: now, toDate: now }, 1));
    }
    const results = await this.multi(calls);
    const fetchedAt = isoMs(this.clock.now());
    const items: Observation[] = [];
    let n = 0;
    const page = new PageRecords();
    const rows = <S extends z.ZodType>(schema: S, path: string, idOf?: (raw: unknown) => string | null): z.output<S>[] =>
      parseGeotabRows(schema, results[n++], path, { page, ...(idOf ? { idOf } : {}) }).data;
    for (const device of devices) {
      const dsi = wantsStatus ? rows(deviceStatusInfoSchema, 'geotab:Get:DeviceStatusInfo', idAt('device'))[0] : undefined;
      let ignition: z.output<typeof statusDataSchema> | undefined;
      for (const diagnostic of diagnostics) {
        const record = rows(statusDataSchema, 'geotab:Get:StatusData').at(-1);
        if (!record || record.device !== device) continue;
        if (diagnostic === GEOTAB_DIAGNOSTICS.ignition) ignition = record;
        const obs = statusDataObservation(record, fetchedAt);
        if (obs && metrics.has(obs.metric)) items.push(obs);
      }
      if (dsi && dsi.device === device) items.push(...deviceStatusObservations(dsi, ignition, metrics, fetchedAt));
    }
    page.settle();
    return withSkipped(items, next, [...skipped, ...page.skipped]);
  }

  async telemetryHistory(query: Parameters<ProviderAdapter['telemetryHistory']>[0]): Promise<Page<Observation>> {
    const { fromMs, toMs } = parseWindowMs(query.from, query.to, this.clock.now());
    const metrics = new Set(query.metrics);
    const wantsGps = metrics.has('location') || metrics.has('speed') || metrics.has('engineState');
    const diagnostics = [...metrics].flatMap((m) => DIAGNOSTIC_FOR_METRIC[m] ?? []);
    const limit = this.sizes.windowed;
    type Rows = { logs: z.output<typeof logRecordSchema>[]; status: z.output<typeof statusDataSchema>[]; initialIgnition?: number };
    const slice = await readSlice<Rows>({ fromMs, toMs, devices: query.vehicleSourceIds }, decodeCursor(query.cursor, 'slice'), async (device, startMs, endMs) => {
      const id = device as string;
      const range = { deviceSearch: { id }, fromDate: isoMs(startMs), toDate: isoMs(endMs) };
      const calls: GeotabCall[] = [];
      if (wantsGps) calls.push(getCall('LogRecord', range, limit));
      for (const diagnostic of diagnostics) calls.push(getCall('StatusData', { ...range, diagnosticSearch: { id: diagnostic } }, limit));
      // The ignition value in effect at the slice start (fromDate = toDate, resultsLimit 1).
      if (metrics.has('engineState')) calls.push(getCall('StatusData', { deviceSearch: { id }, diagnosticSearch: { id: GEOTAB_DIAGNOSTICS.ignition }, fromDate: isoMs(startMs), toDate: isoMs(startMs) }, 1));
      const results = await this.multi(calls);
      let n = 0;
      const page = new PageRecords();
      const read = <S extends z.ZodType>(schema: S, path: string): GeotabRows<z.output<S>> => parseGeotabRows(schema, results[n++], path, { page });
      const logRows = wantsGps ? read(logRecordSchema, 'geotab:Get:LogRecord') : undefined;
      const statusRows = diagnostics.map(() => read(statusDataSchema, 'geotab:Get:StatusData'));
      const initial = metrics.has('engineState') ? read(statusDataSchema, 'geotab:Get:StatusData').data.at(-1) : undefined;
      const logs = logRows?.data ?? [];
      const status = statusRows.flatMap((r) => r.data);
      // One call per diagnostic, so each call's own count (skipped rows included) says whether it was cut.
      const full = (logRows?.read ?? 0) >= limit || statusRows.some((r) => r.read >= limit);
      page.settle();
      const keep = <T extends { dateTime: string; device: string }>(r: T) => r.device === id && inSlice(r.dateTime, startMs, endMs);
      const initialIgnition = initial && Date.parse(initial.dateTime) <= startMs && (initial.data === 0 || initial.data === 1) ? initial.data : undefined;
      return { rows: [{ logs: logs.filter(keep), status: status.filter(keep), initialIgnition }], full, skipped: page.skipped };
    });
    const fetchedAt = isoMs(this.clock.now());
    const items: Observation[] = [];
    for (const rows of slice.rows) {
      for (const log of uniqueRecords(rows.logs)) items.push(...logRecordObservations(log, metrics, fetchedAt));
      const status = uniqueRecords(rows.status);
      for (const record of status) {
        const obs = statusDataObservation(record, fetchedAt);
        if (obs && metrics.has(obs.metric)) items.push(obs);
      }
      if (metrics.has('engineState') && slice.device) {
        const ignitions = status.filter((s) => s.diagnostic === GEOTAB_DIAGNOSTICS.ignition);
        items.push(...engineStateHistory(slice.device, ignitions, uniqueRecords(rows.logs), rows.initialIgnition, fetchedAt));
      }
    }
    return withSkipped(items, slice.next, slice.skipped);
  }

  async faults(query: Parameters<ProviderAdapter['faults']>[0]): Promise<Page<FaultRecord>> {
    const wanted = query.vehicleSourceIds?.length ? new Set(query.vehicleSourceIds) : null;
    let rows: GeotabFaultData[];
    let next: string | null;
    let skipped: SkippedRecord[];
    if (query.from !== undefined) {
      const { fromMs, toMs } = parseWindowMs(query.from, query.to, this.clock.now());
      const limit = this.sizes.windowed;
      const slice = await readSlice({ fromMs, toMs, devices: query.vehicleSourceIds?.length ? query.vehicleSourceIds : [null] }, decodeCursor(query.cursor, 'slice'), async (device, startMs, endMs) => {
        const search = { fromDate: isoMs(startMs), toDate: isoMs(endMs), ...(device ? { deviceSearch: { id: device } } : {}) };
        const found = await this.client.getRows('FaultData', faultDataSchema, { search, resultsLimit: limit });
        return { rows: found.data.filter((f) => inSlice(f.dateTime, startMs, endMs)), full: found.read >= limit, skipped: found.skipped };
      });
      rows = slice.rows;
      next = slice.next;
      skipped = [...slice.skipped];
    } else {
      const from = decodeCursor(query.cursor, 'feed');
      const page = await this.client.getFeedRows('FaultData', faultDataSchema, { fromVersion: from?.v, resultsLimit: this.sizes.faultFeed });
      const toMs = query.to === undefined ? Infinity : parseWindowMs(undefined, query.to, 0).toMs;
      rows = page.data.filter((f) => Date.parse(f.dateTime) < toMs);
      next = this.feedNext(page, this.sizes.faultFeed);
      skipped = [...page.skipped];
    }
    const faults = latestById(rows, (f) => f.id).filter((f) => !wanted || wanted.has(f.device));
    await this.loadFaultLookups(faults);
    const ctx = this.context();
    const lookups = { diagnostics: present(this.diagnostics), failureModes: present(this.failureModes) };
    const items = faults.flatMap((f) => {
      const record = mapFault(f, lookups, ctx);
      if (!record) skipped.push({ sourceId: f.id, reason: `geotab FaultData ${f.id}: no device (${f.device}), or dateTime not RFC 3339` });
      return record ?? [];
    });
    return withSkipped(items, next, skipped);
  }

  /** Diagnostic and FailureMode entities for codes and descriptions; cached for the adapter's life. */
  private async loadFaultLookups(faults: readonly GeotabFaultData[]): Promise<void> {
    const diagnostics = [...new Set(faults.map((f) => f.diagnostic))].filter((id) => !this.diagnostics.has(id));
    const modes = [...new Set(faults.flatMap((f) => (f.failureMode && f.failureMode !== 'NoFailureModeId' ? [f.failureMode] : [])))].filter((id) => !this.failureModes.has(id));
    const results = await this.multi([...diagnostics.map((id) => getCall('Diagnostic', { id })), ...modes.map((id) => getCall('FailureMode', { id }))]);
    // Lookups only name and code a fault: a malformed one is as good as none (the diagnostic id stands in).
    diagnostics.forEach((id, n) => this.diagnostics.set(id, parseGeotabRows(diagnosticSchema, results[n], 'geotab:Get:Diagnostic', { page: new PageRecords() }).data[0] ?? null));
    modes.forEach((id, n) => this.failureModes.set(id, parseGeotabRows(failureModeSchema, results[diagnostics.length + n], 'geotab:Get:FailureMode', { page: new PageRecords() }).data[0] ?? null));
  }

  private async multi(calls: readonly GeotabCall[]): Promise<unknown[]> {
    const out: unknown[] = [];
    for (let i = 0; i < calls.length; i += MULTICALL_BATCH) out.push(...(await this.client.multiCall(calls.slice(i, i + MULTICALL_BATCH))));
    return out;
  }

  /** A feed page of `limit` records (skipped ones count: they were read) means "call again". */
  private feedNext(page: { read: number; toVersion: string }, limit: number): string | null {
    return page.read >= limit ? encodeCursor({ k: 'feed', v: page.toVersion }) : null;
  }
}

function getCall(typeName: string, search: Record<string, unknown>, resultsLimit?: number): GeotabCall {
  return { method: 'Get', params: { typeName, search, ...(resultsLimit ? { resultsLimit } : {}) } };
}

function withSkipped<T>(items: T[], next: string | null, skipped: readonly SkippedRecord[]): Page<T> {
  return { items, next, ...(skipped.length > 0 ? { skipped } : {}) };
}

function inSlice(dateTime: string, startMs: number, endMs: number): boolean {
  const t = Date.parse(dateTime);
  return t >= startMs && t < endMs;
}

/** Feeds re-send updated records with a new version: within a page the last copy of an id wins. */
function latestById<T>(rows: readonly T[], id: (row: T) => string): T[] {
  const byId = new Map<string, T>();
  for (const row of rows) {
    const key = id(row);
    byId.delete(key);
    byId.set(key, row);
  }
  return [...byId.values()];
}

/** Time-series rows without an id are kept; rows with one are de-duplicated. */
function uniqueRecords<T extends { id?: string | null; dateTime: string }>(rows: readonly T[]): T[] {
  const seen = new Set<string>();
  return [...rows]
    .sort((a, b) => Date.parse(a.dateTime) - Date.parse(b.dateTime))
    .filter((r) => {
      if (!r.id) return true;
      if (seen.has(r.id)) return false;
      seen.add(r.id);
      return true;
    });
}

function present<T>(map: ReadonlyMap<string, T | null>): Map<string, T> {
  return new Map([...map].filter((e): e is [string, T] => e[1] !== null));
}
