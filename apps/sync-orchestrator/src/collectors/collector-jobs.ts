/**
 * How leased units become collector jobs, and how one fetched page becomes ingest batches — the
 * pure half of the collectors (unit-tested in collector-jobs.spec.ts).
 *
 * Grouping: the snapshot purposes (`vehicles`, `groupMemberships`) of one sync are served by one
 * fleet listing, so the units of one sync and purpose leased together form ONE job that lists the
 * fleet once and hands each unit the records of its own vehicle; a `trips` unit is its own job (its
 * query already names its vehicle and day). Invariant: every unit still gets its own batches, its
 * own `final` batch and therefore its own receipt — grouping saves provider requests, never
 * receipts.
 *
 * Batches: a page is split with `splitIngestRecords`; each part's msgId/batchId is
 * `ingestBatchId({connectionId, kind, unitId, fencingToken, pageKey, part})`, so a page republished
 * under the same lease is deduplicated and a re-leased unit (new fencing token) gets new ids;
 * `final` is set only on the last part of the unit's last page.
 */
import type { DirectoryBatchV1, IngestKind } from '@switchyard/messaging';
import { ingestBatchId, splitIngestRecords } from '@switchyard/messaging';
import type { Provider } from '@switchyard/domain';
import type { LeasedUnit } from '../db/repositories/unit-lease.repository.js';

export type SnapshotPurpose = 'vehicles' | 'groupMemberships';

export type CollectorJob =
  | { readonly kind: 'snapshot'; readonly purpose: SnapshotPurpose; readonly syncId: string; readonly connectionId: string; readonly units: readonly LeasedUnit[] }
  | { readonly kind: 'trips'; readonly syncId: string; readonly connectionId: string; readonly unit: LeasedUnit };

/** Groups leased units into jobs (order of first appearance kept). */
export function groupIntoJobs(units: readonly LeasedUnit[]): CollectorJob[] {
  const jobs: CollectorJob[] = [];
  const snapshots = new Map<string, { purpose: SnapshotPurpose; syncId: string; connectionId: string; units: LeasedUnit[] }>();
  for (const unit of units) {
    if (unit.purpose === 'trips') {
      jobs.push({ kind: 'trips', syncId: unit.syncId, connectionId: unit.connectionId, unit });
      continue;
    }
    const key = `${unit.syncId}\u0000${unit.purpose}`;
    let group = snapshots.get(key);
    if (!group) {
      group = { purpose: unit.purpose, syncId: unit.syncId, connectionId: unit.connectionId, units: [] };
      snapshots.set(key, group);
      jobs.push({ kind: 'snapshot', ...group, units: group.units });
    }
    group.units.push(unit);
  }
  return jobs;
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

/** The `groupMemberships` listing runs two lanes (all groups, then vehicles with their memberships). */
export interface MembershipCursor {
  readonly lane: 'groups' | 'vehicles';
  readonly cursor: string | null;
}

export function encodeMembershipCursor(c: MembershipCursor): string {
  return JSON.stringify({ l: c.lane, c: c.cursor });
}

/** A cursor that is not ours (or none) starts from the first lane. */
export function decodeMembershipCursor(raw: string | null): MembershipCursor {
  if (raw === null) return { lane: 'groups', cursor: null };
  try {
    const parsed = JSON.parse(raw) as { l?: unknown; c?: unknown };
    if ((parsed.l === 'groups' || parsed.l === 'vehicles') && (parsed.c === null || typeof parsed.c === 'string')) return { lane: parsed.l, cursor: parsed.c };
  } catch {
    // fall through: restart the listing
  }
  return { lane: 'groups', cursor: null };
}

type DirectoryKind = DirectoryBatchV1['kind'];
type RecordsOf<K extends DirectoryKind> = Extract<DirectoryBatchV1, { kind: K }>['records'];

export interface PageBatchInput<K extends DirectoryKind> {
  readonly unit: LeasedUnit;
  readonly provider: Provider;
  readonly kind: K;
  readonly records: Readonly<RecordsOf<K>>;
  /** Identifies the provider page inside the unit's lease (e.g. the request cursor, `start` for the first). */
  readonly pageKey: string;
  /** The adapter's next cursor after this page (null when the listing ended). */
  readonly providerCursor: string | null;
  /** This page is the unit's last: its last part carries `final: true`. */
  readonly last: boolean;
  readonly fetchedAt: string;
}

/** The batches (one per part) of one page for one unit, ready to publish with msgId = batchId. */
export function pageBatches<K extends DirectoryKind>(input: PageBatchInput<K>): DirectoryBatchV1[] {
  const { unit, kind } = input;
  const parts = splitIngestRecords<unknown>(kind as IngestKind, input.records as readonly unknown[]);
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
      }) as DirectoryBatchV1,
  );
}
