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
 * Purposes:
 * - `vehicles`: `adapter.vehicles()` pages, each unit gets the records whose sourceId is its vehicle;
 * - `groupMemberships`: lane `groups` (every group page, carried by the job's first unit: groups
 *   are not per vehicle) then lane `vehicles` (each unit gets its vehicle, whose record carries the
 *   memberships the adapter reads); the units' final batches are on the last vehicle page;
 * - `trips`: `adapter.trips({from, to, vehicleSourceIds: [vehicle]})` for the unit's slice; trips of
 *   another vehicle (should the provider return any) are dropped, never attributed.
 * A vehicle absent from the listing gets an empty final batch: nothing is written for it (never
 * zeros), and the unit completes because the provider answered.
 */
import type { Provider, TripRecord, VehicleRecord } from '@switchyard/domain';
import type { DirectoryBatchV1 } from '@switchyard/messaging';
import type { Page, ProviderAdapter } from '@switchyard/providers';
import type { LeasedUnit } from '../db/repositories/unit-lease.repository.js';
import { decodeMembershipCursor, encodeMembershipCursor, pageBatches, sharedCursor, type CollectorJob, type MembershipCursor } from './collector-jobs.js';

export interface FetchContext {
  readonly adapter: ProviderAdapter;
  readonly provider: Provider;
  /** False once the sync left requested/in_progress or the collector is stopping. */
  proceed(): Promise<boolean>;
  /** False once the unit's lease was lost. */
  held(unit: LeasedUnit): boolean;
  /** Records the unit's batches before they are published; false when the lease was lost (then nothing is published). */
  record(unit: LeasedUnit, batches: readonly DirectoryBatchV1[]): Promise<boolean>;
  publish(batch: DirectoryBatchV1): Promise<void>;
  saveCursor(unit: LeasedUnit, cursor: string | null): Promise<void>;
}

const now = () => new Date().toISOString();

export async function runJob(job: CollectorJob, ctx: FetchContext): Promise<void> {
  if (job.kind === 'trips') return runTrips(job.unit, ctx);
  if (job.purpose === 'vehicles') return runVehicles(job.units, ctx);
  return runMemberships(job.units, ctx);
}

async function publishAll(ctx: FetchContext, unit: LeasedUnit, batches: readonly DirectoryBatchV1[]): Promise<void> {
  if (!(await ctx.record(unit, batches))) return;
  for (const batch of batches) await ctx.publish(batch);
}

async function runVehicles(units: readonly LeasedUnit[], ctx: FetchContext): Promise<void> {
  let cursor = sharedCursor(units);
  for (;;) {
    if (!(await ctx.proceed())) return;
    const page: Page<VehicleRecord> = await ctx.adapter.vehicles(cursor);
    const fetchedAt = now();
    const last = page.next === null;
    const live = units.filter((u) => ctx.held(u));
    for (const unit of live) {
      const records = page.items.filter((v) => v.sourceId === unit.vehicleSourceId);
      if (records.length === 0 && !last) continue;
      await publishAll(ctx, unit, pageBatches({ unit, provider: ctx.provider, kind: 'vehicles', records, pageKey: cursor ?? 'start', providerCursor: page.next, last, fetchedAt }));
    }
    for (const unit of live) await ctx.saveCursor(unit, page.next);
    if (last) return;
    cursor = page.next;
  }
}

async function runMemberships(units: readonly LeasedUnit[], ctx: FetchContext): Promise<void> {
  let position: MembershipCursor = decodeMembershipCursor(sharedCursor(units));
  for (;;) {
    if (!(await ctx.proceed())) return;
    const live = units.filter((u) => ctx.held(u));
    const carrier = live[0];
    if (!carrier) return;
    const pageKey = `${position.lane}:${position.cursor ?? 'start'}`;
    let next: MembershipCursor | null;
    if (position.lane === 'groups') {
      const page = await ctx.adapter.groups(position.cursor);
      next = { lane: page.next === null ? 'vehicles' : 'groups', cursor: page.next };
      const providerCursor = encodeMembershipCursor(next);
      await publishAll(ctx, carrier, pageBatches({ unit: carrier, provider: ctx.provider, kind: 'groups', records: page.items, pageKey, providerCursor, last: false, fetchedAt: now() }));
      for (const unit of live) await ctx.saveCursor(unit, providerCursor);
    } else {
      const page = await ctx.adapter.vehicles(position.cursor);
      const fetchedAt = now();
      const last = page.next === null;
      next = last ? null : { lane: 'vehicles', cursor: page.next };
      const providerCursor = next && encodeMembershipCursor(next);
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

async function runTrips(unit: LeasedUnit, ctx: FetchContext): Promise<void> {
  if (unit.windowStart === null || unit.windowEnd === null) throw new Error(`trips unit ${unit.unitId} has no window`);
  let cursor = unit.providerCursor;
  for (;;) {
    if (!(await ctx.proceed()) || !ctx.held(unit)) return;
    const page: Page<TripRecord> = await ctx.adapter.trips({ from: unit.windowStart, to: unit.windowEnd, vehicleSourceIds: [unit.vehicleSourceId], cursor });
    const last = page.next === null;
    const records = page.items.filter((t) => t.vehicleSourceId === unit.vehicleSourceId);
    await publishAll(ctx, unit, pageBatches({ unit, provider: ctx.provider, kind: 'trips', records, pageKey: cursor ?? 'start', providerCursor: page.next, last, fetchedAt: now() }));
    await ctx.saveCursor(unit, page.next);
    if (last) return;
    cursor = page.next;
  }
}
