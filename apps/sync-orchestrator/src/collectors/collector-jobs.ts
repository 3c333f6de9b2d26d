/**
 * How leased units become collector jobs, and how one fetched page becomes ingest batches — the
 * pure half of the collectors (unit-tested in collector-jobs.spec.ts).
 *
 * Grouping: the per-vehicle snapshot purposes (`vehicles`, `groupMemberships`, `telemetryLatest`,
 * `faults`) of one sync are served by one fleet listing, so the units of one sync and purpose
 * leased together form ONE job that lists the fleet once (telemetry and faults: asking for the
 * job's vehicles) and hands each unit the records of its own vehicle; a `trips` or
 * `telemetryHistory` unit is its own job (its query already names its vehicle and slice), and so is
 * a connection-level `drivers` or `groups` unit (one per sync). Invariant: every unit still gets its
 * own batches, its own `final` batch and therefore its own receipt — grouping saves provider
 * requests, never receipts.
 *
 * Cursors of listings asked for the job's vehicles (telemetryLatest, faults) only mean something
 * for that vehicle set (Geotab pages by offset into it), so they are stored with a digest of the
 * set (`encodeFleetCursor`) and a group with another set restarts the listing.
 *
 * Batches: a page is split with `splitIngestRecords`; each part's msgId/batchId is
 * `ingestBatchId({connectionId, kind, unitId, fencingToken, pageKey, part})`, so a page republished
 * under the same lease is deduplicated and a re-leased unit (new fencing token) gets new ids;
 * `final` is set only on the last part of the unit's last page; vehicles and drivers batches carry
 * their roster `pass` (the unit's purpose and how many units of its sync share it), so the
 * directory completes a pass once every unit of it delivered its final page (decision 0011);
 * fault-records batches carry their `read` (the unit's vehicle and window end), so fault-feed knows
 * up to when the vehicle's faults were read even when the read found no record.
 */
import type { DirectoryDataset, IngestBatchV1, IngestKind } from '@switchyard/messaging';
import { ingestBatchId, splitIngestRecords } from '@switchyard/messaging';
import type { Provider } from '@switchyard/domain';
import { createHash } from 'node:crypto';
import type { LeasedUnit } from '../db/repositories/unit-lease.repository.js';
import { isExtendedMetric, telemetryMetricsFor } from '../domain/collection-scope.js';
import type { SyncPurpose } from '../domain/sync-planner.js';

export type SnapshotPurpose = 'vehicles' | 'groupMemberships' | 'telemetryLatest' | 'faults';
export type UnitPurpose = Exclude<SyncPurpose, SnapshotPurpose>;
const SNAPSHOT_PURPOSES: readonly SyncPurpose[] = ['vehicles', 'groupMemberships', 'telemetryLatest', 'faults'];
const isSnapshot = (p: SyncPurpose): p is SnapshotPurpose => SNAPSHOT_PURPOSES.includes(p);

export type CollectorJob =
  | { readonly kind: 'snapshot'; readonly purpose: SnapshotPurpose; readonly syncId: string; readonly connectionId: string; readonly units: readonly LeasedUnit[] }
  | { readonly kind: 'unit'; readonly purpose: UnitPurpose; readonly syncId: string; readonly connectionId: string; readonly unit: LeasedUnit };

/** Groups leased units into jobs (order of first appearance kept). */
export function groupIntoJobs(units: readonly LeasedUnit[]): CollectorJob[] {
  const jobs: CollectorJob[] = [];
  const snapshots = new Map<string, LeasedUnit[]>();
  for (const unit of units) {
    const purpose = unit.purpose;
    if (!isSnapshot(purpose)) {
      jobs.push({ kind: 'unit', purpose, syncId: unit.syncId, connectionId: unit.connectionId, unit });
      continue;
    }
    const key = `${unit.syncId}\u0000${purpose}`;
    let group = snapshots.get(key);
    if (!group) {
      group = [];
      snapshots.set(key, group);
      jobs.push({ kind: 'snapshot', purpose, syncId: unit.syncId, connectionId: unit.connectionId, units: group });
    }
    group.push(unit);
  }
  return jobs;
}

export const jobUnits = (job: CollectorJob): readonly LeasedUnit[] => (job.kind === 'unit' ? [job.unit] : job.units);

/**
 * The connection-health scopes a job's outcome counts for: `core` always; also `extended` when it
 * is telemetry work that asks for an extended metric (collection-scope.ts).
 */
export function healthScopes(job: CollectorJob, support: Readonly<Record<string, string>>): ('core' | 'extended')[] {
  if (job.purpose !== 'telemetryLatest' && job.purpose !== 'telemetryHistory') return ['core'];
  const unit = jobUnits(job)[0];
  const metrics = unit ? telemetryMetricsFor({ signals: unit.signals, extendedTelemetry: unit.extendedTelemetry, support }) : [];
  return metrics.some(isExtendedMetric) ? ['core', 'extended'] : ['core'];
}

/**
 * The directory datasets a job's outcome is about (the health event's `datasets`), so one
 * dataset's provider failure degrades only that dataset's reads: `groupMemberships` feeds the
 * groups dataset (reads report memberships under its status); telemetry and fault work feeds none.
 */
const HEALTH_DATASETS: Readonly<Record<SyncPurpose, readonly DirectoryDataset[]>> = {
  vehicles: ['vehicles'],
  drivers: ['drivers'],
  groups: ['groups'],
  groupMemberships: ['groups'],
  trips: ['trips'],
  telemetryLatest: [],
  telemetryHistory: [],
  faults: [],
};

export const healthDatasets = (job: CollectorJob): DirectoryDataset[] => [...HEALTH_DATASETS[job.purpose]];

/** The sorted, distinct vehicles of a group (the vehicle set a fleet cursor belongs to). */
export function groupVehicles(units: readonly LeasedUnit[]): string[] {
  return [...new Set(units.flatMap((u) => (u.vehicleSourceId === null ? [] : [u.vehicleSourceId])))].sort();
}

const vehicleDigest = (vehicles: readonly string[]) => createHash('sha256').update(JSON.stringify(vehicles)).digest('hex').slice(0, 16);

/** A provider cursor of a listing asked for `vehicles`, bound to that set. */
export function encodeFleetCursor(vehicles: readonly string[], cursor: string): string {
  return JSON.stringify({ f: vehicleDigest(vehicles), c: cursor });
}

/** The provider cursor when `raw` was stored for the same vehicle set; otherwise null (restart). */
export function decodeFleetCursor(raw: string | null, vehicles: readonly string[]): string | null {
  if (raw === null) return null;
  try {
    const parsed = JSON.parse(raw) as { f?: unknown; c?: unknown };
    if (parsed.f === vehicleDigest(vehicles) && typeof parsed.c === 'string') return parsed.c;
  } catch {
    // fall through: restart the listing
  }
  return null;
}

/**
 * Where a group resumes: the stored provider cursor when every unit of the group stopped at the
 * same one (they were listed together under the previous lease); otherwise from the start — a
 * listing restarted costs requests, a listing resumed at the wrong place would lose records.
 */
export function sharedCursor(units: readonly LeasedUnit[]): string | null {
  const first = units[0]?.providerCursor ?? null;
  return units.every((u) => u.providerCursor === first) ? first : null;
}

/**
 * A position in a listing of several lanes run one after the other (the `groupMemberships`
 * listing: all groups, then vehicles with their memberships; telemetry: core, then extended
 * metrics — telemetry-lanes.ts): the lane and the provider cursor inside it.
 */
export interface LaneCursor<L extends string> {
  readonly lane: L;
  readonly cursor: string | null;
}

export function encodeLaneCursor<L extends string>(c: LaneCursor<L>): string {
  return JSON.stringify({ l: c.lane, c: c.cursor });
}

/** A cursor that is not ours, of a lane not in `lanes` (or none) starts from the first lane. */
export function decodeLaneCursor<L extends string>(raw: string | null, lanes: readonly [L, ...L[]]): LaneCursor<L> {
  const start = { lane: lanes[0], cursor: null };
  if (raw === null) return start;
  try {
    const parsed = JSON.parse(raw) as { l?: unknown; c?: unknown };
    const lane = lanes.find((l) => l === parsed.l);
    if (lane !== undefined && (parsed.c === null || typeof parsed.c === 'string')) return { lane, cursor: parsed.c };
  } catch {
    // fall through: restart the listing
  }
  return start;
}

/** The `groupMemberships` listing's lanes. */
export type MembershipCursor = LaneCursor<'groups' | 'vehicles'>;
export const MEMBERSHIP_LANES = ['groups', 'vehicles'] as const;

export type BatchOf<K extends IngestKind> = Extract<IngestBatchV1, { kind: K }>;
export type RecordOf<K extends IngestKind> = BatchOf<K>['records'][number];

export interface PageBatchInput<K extends IngestKind> {
  readonly unit: LeasedUnit;
  readonly provider: Provider;
  readonly kind: K;
  readonly records: readonly RecordOf<K>[];
  /** Identifies the provider page inside the unit's lease (e.g. the request cursor, `start` for the first). */
  readonly pageKey: string;
  /** The adapter's next cursor after this page (null when the listing ended). */
  readonly providerCursor: string | null;
  /** This page is the unit's last: its last part carries `final: true`. */
  readonly last: boolean;
  readonly fetchedAt: string;
}

/** Kinds the directory keeps as roster passes: their batches say which pass (sync + purpose, unit count) they belong to. */
const ROSTER_KINDS: readonly IngestKind[] = ['vehicles', 'drivers'];

/** The batches (one per part) of one page for one unit, ready to publish with msgId = batchId. */
export function pageBatches<K extends IngestKind>(input: PageBatchInput<K>): BatchOf<K>[] {
  const { unit, kind } = input;
  const parts = splitIngestRecords<unknown>(kind, input.records as readonly unknown[]);
  return parts.map(
    (records, part) =>
      ({
        batchId: ingestBatchId({ connectionId: unit.connectionId, kind, unitId: unit.unitId, fencingToken: unit.fencingToken, pageKey: input.pageKey, part }),
        connectionId: unit.connectionId,
        provider: input.provider,
        syncId: unit.syncId,
        unitId: unit.unitId,
        fencingToken: unit.fencingToken,
        kind,
        records,
        fetchedAt: input.fetchedAt,
        providerCursor: input.providerCursor,
        final: input.last && part === parts.length - 1,
        ...(ROSTER_KINDS.includes(kind) ? { pass: { purpose: unit.purpose, units: unit.passUnits } } : {}),
        ...(kind === 'fault_records' && unit.vehicleSourceId !== null && unit.windowEnd !== null ? { read: { vehicleSourceId: unit.vehicleSourceId, windowEnd: unit.windowEnd } } : {}),
      }) as BatchOf<K>,
  );
}
