/**
 * A roster as the last COMPLETE pass of its dataset (decision 0014): the driver directory (spec 4.2
 * "last complete directory") and the vehicle roster of the metadata read (spec 2.3
 * `not_in_current_roster`, decision 0011). A pass is the batches of every unit of one sync and
 * purpose (the batch's `pass`: vehicles plans one unit per approved vehicle) from the first page to
 * the final page of its last unit; a batch without `pass` is a pass of its unit alone, a batch
 * without a unit one of its own. While a pass runs, its members (drivers or vehicles) are only
 * sighted and its units' final pages counted; when the final page of its last unit commits, the
 * pass becomes the roster: members it did not carry leave it, members it carried enter it
 * (roster-pass.repository.ts, one set of tables per dataset).
 * Invariants, all under the connection's lock of the dataset:
 * - a member only an unfinished pass has seen is never listed;
 * - the directory only moves forward: a final page fetched before the current roster's final
 *   page (an older pass finishing late) never replaces it — its sightings are dropped;
 * - a page of a completed pass that commits late (redelivery, a final page sent again under a new
 *   lease) lists its members when that pass is still the roster; for an older pass it is moot.
 * Also the pure rules of the reads: a member's position relative to a pass, and the DriverResult
 * status of a driver the current directory no longer lists.
 */
import { driverId, vehicleId } from '@switchyard/domain';
import type { DatasetStatusV1, DirectoryBatchV1 } from '@switchyard/messaging';
import type { Em } from '@switchyard/persistence';
import { ROSTER_DATASETS, RosterPassRepository, type RosterInterval } from '../db/repositories/roster-pass.repository.js';

/** A batch of a rostered dataset. */
export type RosterBatch = Extract<DirectoryBatchV1, { kind: keyof typeof ROSTER_DATASETS }>;

/**
 * The pass a batch belongs to: its sync's units of its purpose when it names its pass, else its
 * unit of its sync, or the batch alone when it has no unit.
 */
export function passKeyOf(batch: Pick<DirectoryBatchV1, 'syncId' | 'unitId' | 'batchId' | 'pass'>): string {
  if (batch.unitId === null) return `batch:${batch.batchId}`;
  return batch.pass ? `sync:${batch.syncId ?? '-'}:${batch.pass.purpose}` : `unit:${batch.syncId ?? '-'}:${batch.unitId}`;
}

/**
 * Where a stored member (driver or vehicle) stands relative to completed pass `seq` (undefined: none completed):
 * `listed` — the pass carried it; `delisted` — an earlier complete pass listed it, this one did not
 * (removed at the provider, or no longer visible to the credential); `unlisted` — no complete pass
 * up to `seq` ever listed it (seen only by an unfinished pass, or no pass completed).
 */
export function rosterPosition(intervals: readonly RosterInterval[], seq: number | undefined): 'listed' | 'delisted' | 'unlisted' {
  if (seq === undefined) return 'unlisted';
  if (intervals.some((i) => i.from_seq <= seq && (i.to_seq === null || i.to_seq > seq))) return 'listed';
  return intervals.some((i) => i.from_seq <= seq) ? 'delisted' : 'unlisted';
}

/**
 * The DriverResult frame of a delisted driver: its last known record is served as `stale` (the
 * DriverResult enum has no not_in_current_roster; `degraded` still wins, with its reason), with
 * fetchedAt the fetch time of that record — earlier than capturedAt, the current directory's final
 * page, which is what tells a client the driver is not in the current directory.
 */
export function delistedDataset(directory: DatasetStatusV1, recordFetchedAt: string): DatasetStatusV1 {
  return { ...directory, status: directory.status === 'degraded' ? 'degraded' : 'stale', fetchedAt: recordFetchedAt };
}

/** The minted row ids a batch carries, as its dataset's table stores them. */
function memberIds(batch: RosterBatch): string[] {
  const { connectionId, provider } = batch;
  const mint = batch.kind === 'drivers' ? driverId : vehicleId;
  return [...new Set(batch.records.map((r) => mint({ connectionId, provider, sourceId: r.sourceId })))];
}

export class RosterPassService {
  private readonly repositories = {
    drivers: new RosterPassRepository(ROSTER_DATASETS.drivers),
    vehicles: new RosterPassRepository(ROSTER_DATASETS.vehicles),
  };

  /**
   * Records a batch's place in its pass, inside the batch's transaction; completes the pass on its
   * final page. True when the roster may have changed (the pass completed, or a late page of the
   * current pass was listed): the roster-derived vehicle statuses then follow it.
   */
  async record(em: Em, batch: RosterBatch): Promise<boolean> {
    const { connectionId } = batch;
    const repository = this.repositories[batch.kind];
    const ids = memberIds(batch);
    const passKey = passKeyOf(batch);
    await repository.lock(em, connectionId);
    const completed = await repository.completedSeq(em, connectionId, passKey);
    if (completed !== undefined) {
      if ((await repository.current(em, connectionId))?.seq !== completed) return false;
      await repository.listLate(em, connectionId, completed, ids);
      return true;
    }
    await repository.sight(em, connectionId, passKey, ids, batch.fetchedAt);
    if (!batch.final) return false;
    let capturedAt = batch.fetchedAt;
    if (batch.pass && batch.unitId !== null) {
      const finished = await repository.finishUnit(em, connectionId, passKey, batch.unitId, batch.fetchedAt);
      if (finished.units < batch.pass.units) return false;
      capturedAt = finished.lastFinalAt;
    }
    const current = await repository.current(em, connectionId);
    if (current && Date.parse(current.captured_at) > Date.parse(capturedAt)) {
      await repository.dropSightings(em, connectionId, passKey);
      return false;
    }
    await repository.complete(em, { connectionId, passKey, syncId: batch.syncId, unitId: batch.pass ? null : batch.unitId, capturedAt });
    return true;
  }
}
