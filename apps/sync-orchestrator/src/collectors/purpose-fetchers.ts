/**
 * The per-purpose fetch loops of a collector job: page through the adapter, hand each held unit the
 * records of its own vehicle, publish, then save the provider cursor on the unit (so a re-leased
 * unit resumes after the last published page). Provider errors propagate to the collector
 * (collector.service.ts), which decides between re-lease and failing the sync.
 *
 * Per page, in this order: ask whether the sync is still open and the job not stopping (a cancelled
 * sync's job publishes nothing further; the page already fetched is finished); fetch; record the
 * unit's batches of the page in its batch ledger (fenced: a lost lease records and publishes
 * nothing); publish every part; save the cursor. Recording BEFORE publishing means every batch whose
 * receipt can arrive is known, so the receipt consumer never completes a unit while one of its
 * batches is uncommitted. A unit whose lease was lost (heartbeat refused, refused record) is skipped
 * from then on.
 *
 * Purposes (grouped ones: one listing for the job's units, each unit gets its vehicle's records):
 * - `vehicles`: `adapter.vehicles()` pages;
 * - `groupMemberships`: lane `groups` (every group page, carried by the job's first unit: groups
 *   are not per vehicle) then lane `vehicles` (each unit gets its vehicle, whose record carries the
 *   memberships the adapter reads); the units' final batches are on the last vehicle page;
 * - `telemetryLatest`: `adapter.latestTelemetry({metrics, vehicleSourceIds: job's vehicles})` →
 *   `observations` batches (ingest.telemetry), core then extended metrics (telemetry-lanes.ts);
 * - `faults`: complete-snapshot providers → `adapter.faults({vehicleSourceIds})`, the CURRENT
 *   snapshot (`fault_snapshots`); explicit-records providers → `adapter.faults({from, to,
 *   vehicleSourceIds})` over the unit's window (`fault_records`) — both on ingest.faults. While
 *   the connection has no completed faults collection (`firstFaultPass`), the records read reaches
 *   back at least FAULT_INACTIVITY_TIMEOUT_MS (7 days) before the window's end: a fault already
 *   active when we start watching has no record in a five-minute first window (a GO device repeats
 *   it once per ignition cycle), and by fault-feed's rules it is active exactly when it has a
 *   record in the last 7 days (docs/faults.md, issue 23);
 * Per-unit jobs:
 * - `trips` / `telemetryHistory`: `adapter.trips` / `adapter.telemetryHistory` for the unit's
 *   vehicle and slice (history in the same two lanes as latest); records of another vehicle (should the provider return any) are dropped,
 *   never attributed;
 * - `drivers` / `groups`: the connection's whole listing (`adapter.drivers()` / `adapter.groups()`)
 *   on the connection-level unit.
 * What may be collected is decided at lease time from the connection's current signals
 * (collection-scope.ts): telemetry asks only for the connection's covered metrics, faults only when
 * `faults` is selected. Nothing to ask, or an empty fault window, asks the provider nothing.
 * A vehicle absent from a listing, or a unit with nothing to ask, gets an empty final batch: nothing
 * is written for it (never zeros), and the unit completes because the answer is known.
 *
 * Runaway providers (issue 14): every loop walks its listing through a `PageGuard` — a provider
 * that answers a cursor this listing already visited (the same cursor forever, or a cycle), or more
 * than MAX_PAGES_PER_LISTING pages in one lease, fails the unit with `provider_response_changed`
 * (a provider code that fails the sync at once) instead of fetching, spending quota and holding
 * the lease without end.
 *
 * Skipped records: a page's `skipped` (records the adapter read but did not map — a trailer, a
 * malformed record — each with its source id and reason) goes to `ctx.skipped` as soon as the page
 * is fetched, before its records are published; the rest of the page is published as usual.
 */
import { FAULT_INACTIVITY_TIMEOUT_MS } from '@switchyard/contracts';
import type { FaultRecord, FaultSnapshot, Provider, TelemetryMetric } from '@switchyard/domain';
import type { IngestBatchV1, IngestKind } from '@switchyard/messaging';
import { ProviderError, type Page, type ProviderAdapter, type SkippedRecord } from '@switchyard/providers';
import type { LeasedUnit } from '../db/repositories/unit-lease.repository.js';
import { faultsSelected, telemetryMetricsFor } from '../domain/collection-scope.js';
import {
  decodeFleetCursor,
  decodeLaneCursor,
  encodeFleetCursor,
  encodeLaneCursor,
  MEMBERSHIP_LANES,
  groupVehicles,
  pageBatches,
  sharedCursor,
  type CollectorJob,
  type MembershipCursor,
  type RecordOf,
} from './collector-jobs.js';
import { laneListing } from './telemetry-lanes.js';

export interface FetchContext {
  readonly adapter: ProviderAdapter;
  readonly provider: Provider;
  /** False once the sync left requested/in_progress or the collector is stopping. */
  proceed(): Promise<boolean>;
  /** False once the unit's lease was lost. */
  held(unit: LeasedUnit): boolean;
  /** Records the unit's batches before they are published; false when the lease was lost (then nothing is published). */
  record(unit: LeasedUnit, batches: readonly IngestBatchV1[]): Promise<boolean>;
  publish(batch: IngestBatchV1): Promise<void>;
  saveCursor(unit: LeasedUnit, cursor: string | null): Promise<void>;
  /** The records a fetched page reports as skipped (called only when there are some). */
  skipped(records: readonly SkippedRecord[]): void;
  /** A telemetry listing's extended lane failed: true when the failure is absorbed (a refusal, telemetry-lanes.ts), false to throw it. */
  extendedFailed(error: unknown): boolean;
  /** True while the connection has no completed sync that collected faults (its first fault pass is still to come). */
  firstFaultPass(): Promise<boolean>;
}

/** Fetches a page and hands its skipped records to the context. */
async function fetched<T>(ctx: FetchContext, page: Promise<Page<T>>): Promise<Page<T>> {
  const got = await page;
  if (got.skipped && got.skipped.length > 0) ctx.skipped(got.skipped);
  return got;
}

/**
 * Most pages one listing may take in one lease: far above any real listing (10,000 vehicles at 100
 * a page is 100 pages; a day of one vehicle's 1 Hz history at 512 a page is 169), low enough that a
 * provider handing out fresh cursors forever is stopped within minutes. docs/reliability.md.
 */
export const MAX_PAGES_PER_LISTING = 10_000;

/** Stops a listing that repeats a cursor or never ends (see the header). */
export class PageGuard {
  private readonly seen = new Set<string>();
  private pages = 0;

  constructor(
    private readonly what: string,
    start: string | null,
    private readonly maxPages = MAX_PAGES_PER_LISTING,
  ) {
    if (start !== null) this.seen.add(start);
  }

  /** Call with each page's next cursor (null: the listing ended). Throws `provider_response_changed`. */
  next(cursor: string | null): void {
    this.pages += 1;
    if (cursor === null) return;
    if (this.seen.has(cursor)) throw new ProviderError('provider_response_changed', { message: `${this.what}: the provider repeated a cursor after ${this.pages} page(s)` });
    if (this.pages >= this.maxPages) throw new ProviderError('provider_response_changed', { message: `${this.what}: more than ${this.maxPages} pages in one lease` });
    this.seen.add(cursor);
  }
}

const now = () => new Date().toISOString();
const NOTHING: Page<never> = { items: [], next: null };

/** Records carrying a vehicle (observations, trips, fault snapshots and records). */
type VehicleKind = 'vehicles' | 'trips' | 'observations' | 'fault_snapshots' | 'fault_records';
const vehicleOf = (record: RecordOf<VehicleKind>): string => ('vehicleSourceId' in record ? record.vehicleSourceId : record.sourceId);

export async function runJob(job: CollectorJob, ctx: FetchContext): Promise<void> {
  if (job.kind === 'unit') return runUnitJob(job.purpose, job.unit, ctx);
  const { units } = job;
  const vehicles = groupVehicles(units);
  switch (job.purpose) {
    case 'vehicles':
      return runFleet(units, ctx, 'vehicles', null, (cursor) => ctx.adapter.vehicles(cursor));
    case 'groupMemberships':
      return runMemberships(units, ctx);
    case 'telemetryLatest': {
      const listing = laneListing(metricsOf(units[0], ctx), (metrics, cursor) => ctx.adapter.latestTelemetry({ metrics, vehicleSourceIds: vehicles, cursor }), ctx.extendedFailed);
      return runFleet(units, ctx, 'observations', vehicles, listing);
    }
    case 'faults':
      return runFaults(units, vehicles, ctx);
  }
}

function metricsOf(unit: LeasedUnit | undefined, ctx: FetchContext): TelemetryMetric[] {
  if (!unit) return [];
  return telemetryMetricsFor({ signals: unit.signals, extendedTelemetry: unit.extendedTelemetry, support: ctx.adapter.capabilities.fields });
}

async function publishAll(ctx: FetchContext, unit: LeasedUnit, batches: readonly IngestBatchV1[]): Promise<void> {
  if (!(await ctx.record(unit, batches))) return;
  for (const batch of batches) await ctx.publish(batch);
}

/**
 * One listing for a group of per-vehicle units. `scope`: the vehicle set the listing was asked for
 * (its cursors are stored bound to it), or null for a listing of the whole fleet.
 */
async function runFleet<K extends VehicleKind>(
  units: readonly LeasedUnit[],
  ctx: FetchContext,
  kind: K,
  scope: readonly string[] | null,
  fetch: (cursor: string | null) => Promise<Page<RecordOf<K>>>,
): Promise<void> {
  const stored = sharedCursor(units);
  let cursor = scope ? decodeFleetCursor(stored, scope) : stored;
  const guard = new PageGuard(kind, cursor);
  for (;;) {
    if (!(await ctx.proceed())) return;
    const page = await fetched(ctx, fetch(cursor));
    guard.next(page.next);
    const fetchedAt = now();
    const last = page.next === null;
    const providerCursor = page.next !== null && scope ? encodeFleetCursor(scope, page.next) : page.next;
    const live = units.filter((u) => ctx.held(u));
    for (const unit of live) {
      const records = page.items.filter((r) => vehicleOf(r) === unit.vehicleSourceId);
      if (records.length === 0 && !last) continue;
      await publishAll(ctx, unit, pageBatches({ unit, provider: ctx.provider, kind, records, pageKey: cursor ?? 'start', providerCursor, last, fetchedAt }));
    }
    for (const unit of live) await ctx.saveCursor(unit, providerCursor);
    if (last) return;
    cursor = page.next;
  }
}

async function runFaults(units: readonly LeasedUnit[], vehicles: readonly string[], ctx: FetchContext): Promise<void> {
  const first = units[0];
  const selected = first !== undefined && faultsSelected({ signals: first.signals, extendedTelemetry: first.extendedTelemetry, support: ctx.adapter.capabilities.fields });
  if (ctx.adapter.capabilities.faultModel === 'complete_snapshot') {
    return runFleet(units, ctx, 'fault_snapshots', vehicles, async (cursor) =>
      selected ? onlyModel(await ctx.adapter.faults({ vehicleSourceIds: vehicles, cursor }), 'complete_snapshot') : NOTHING,
    );
  }
  // Every unit of one sync and purpose shares the sync's interval.
  const start = first?.windowStart ?? null;
  const to = first?.windowEnd ?? null;
  const lookBack = selected && start !== null && to !== null && (await ctx.firstFaultPass());
  const from = lookBack ? new Date(Math.min(Date.parse(start), Date.parse(to) - FAULT_INACTIVITY_TIMEOUT_MS)).toISOString() : start;
  const empty = from === null || to === null || Date.parse(from) >= Date.parse(to);
  return runFleet(units, ctx, 'fault_records', vehicles, async (cursor) =>
    selected && !empty ? onlyModel(await ctx.adapter.faults({ from, to, vehicleSourceIds: vehicles, cursor }), 'explicit_records') : NOTHING,
  );
}

/** The page's items of the provider's fault model (an adapter returns one model; anything else is dropped, never mislabelled). */
function onlyModel(page: Page<FaultSnapshot | FaultRecord>, model: 'complete_snapshot'): Page<FaultSnapshot>;
function onlyModel(page: Page<FaultSnapshot | FaultRecord>, model: 'explicit_records'): Page<FaultRecord>;
function onlyModel(page: Page<FaultSnapshot | FaultRecord>, model: FaultSnapshot['model'] | FaultRecord['model']): Page<FaultSnapshot | FaultRecord> {
  return { items: page.items.filter((i) => i.model === model), next: page.next, ...(page.skipped ? { skipped: page.skipped } : {}) };
}

async function runMemberships(units: readonly LeasedUnit[], ctx: FetchContext): Promise<void> {
  let position: MembershipCursor = decodeLaneCursor(sharedCursor(units), MEMBERSHIP_LANES);
  const guard = new PageGuard('groupMemberships', `${position.lane}:${position.cursor ?? 'start'}`);
  for (;;) {
    if (!(await ctx.proceed())) return;
    const live = units.filter((u) => ctx.held(u));
    const carrier = live[0];
    if (!carrier) return;
    const pageKey = `${position.lane}:${position.cursor ?? 'start'}`;
    let next: MembershipCursor | null;
    if (position.lane === 'groups') {
      const page = await fetched(ctx, ctx.adapter.groups(position.cursor));
      next = { lane: page.next === null ? 'vehicles' : 'groups', cursor: page.next };
      guard.next(`${next.lane}:${next.cursor ?? 'start'}`);
      const providerCursor = encodeLaneCursor(next);
      await publishAll(ctx, carrier, pageBatches({ unit: carrier, provider: ctx.provider, kind: 'groups', records: page.items, pageKey, providerCursor, last: false, fetchedAt: now() }));
      for (const unit of live) await ctx.saveCursor(unit, providerCursor);
    } else {
      const page = await fetched(ctx, ctx.adapter.vehicles(position.cursor));
      const fetchedAt = now();
      const last = page.next === null;
      next = last ? null : { lane: 'vehicles', cursor: page.next };
      guard.next(next && `${next.lane}:${next.cursor ?? 'start'}`);
      const providerCursor = next && encodeLaneCursor(next);
      for (const unit of live) {
        const records = page.items.filter((v) => v.sourceId === unit.vehicleSourceId);
        if (records.length === 0 && !last) continue;
        await publishAll(ctx, unit, pageBatches({ unit, provider: ctx.provider, kind: 'vehicles', records, pageKey, providerCursor, last, fetchedAt }));
      }
      for (const unit of live) await ctx.saveCursor(unit, providerCursor);
    }
    if (next === null) return;
    position = next;
  }
}

function runUnitJob(purpose: Extract<CollectorJob, { kind: 'unit' }>['purpose'], unit: LeasedUnit, ctx: FetchContext): Promise<void> {
  switch (purpose) {
    case 'drivers':
      return runUnit(unit, ctx, 'drivers', (cursor) => ctx.adapter.drivers(cursor));
    case 'groups':
      return runUnit(unit, ctx, 'groups', (cursor) => ctx.adapter.groups(cursor));
    case 'trips': {
      const { from, to, vehicle } = windowOf(unit);
      return runUnit(unit, ctx, 'trips', (cursor) => ctx.adapter.trips({ from, to, vehicleSourceIds: [vehicle], cursor }), vehicle);
    }
    case 'telemetryHistory': {
      const { from, to, vehicle } = windowOf(unit);
      const listing = laneListing(metricsOf(unit, ctx), (metrics, cursor) => ctx.adapter.telemetryHistory({ from, to, metrics, vehicleSourceIds: [vehicle], cursor }), ctx.extendedFailed);
      return runUnit(unit, ctx, 'observations', listing, vehicle);
    }
  }
}

function windowOf(unit: LeasedUnit): { from: string; to: string; vehicle: string } {
  if (unit.windowStart === null || unit.windowEnd === null || unit.vehicleSourceId === null) throw new Error(`${unit.purpose} unit ${unit.unitId} has no vehicle or window`);
  return { from: unit.windowStart, to: unit.windowEnd, vehicle: unit.vehicleSourceId };
}

/** One unit's own listing, resumed from its cursor; `vehicle` keeps only that vehicle's records. */
async function runUnit<K extends IngestKind>(unit: LeasedUnit, ctx: FetchContext, kind: K, fetch: (cursor: string | null) => Promise<Page<RecordOf<K>>>, vehicle?: string): Promise<void> {
  let cursor = unit.providerCursor;
  const guard = new PageGuard(kind, cursor);
  for (;;) {
    if (!(await ctx.proceed()) || !ctx.held(unit)) return;
    const page = await fetched(ctx, fetch(cursor));
    guard.next(page.next);
    const last = page.next === null;
    const records = vehicle === undefined ? page.items : page.items.filter((r) => vehicleOf(r as RecordOf<VehicleKind>) === vehicle);
    await publishAll(ctx, unit, pageBatches({ unit, provider: ctx.provider, kind, records, pageKey: cursor ?? 'start', providerCursor: page.next, last, fetchedAt: now() }));
    await ctx.saveCursor(unit, page.next);
    if (last) return;
    cursor = page.next;
  }
}
