/**
 * The driver directory as the last COMPLETE drivers pass (decision 0014, spec 4.2 "last complete
 * directory"). A pass is the batches of one collection unit (sync + unit) from its first page to
 * its final page; a batch without a unit is a pass of its own. While a pass runs, its drivers are
 * only sighted; when its final page commits, the pass becomes the directory: drivers it did not
 * carry leave the roster, drivers it carried enter it (driver-pass.repository.ts).
 * Invariants, all under the connection's drivers lock:
 * - a driver only an unfinished pass has seen is never listed;
 * - the directory only moves forward: a final page fetched before the current directory's final
 *   page (an older pass finishing late) never replaces it — its sightings are dropped;
 * - a page of a completed pass that commits late (redelivery, a final page sent again under a new
 *   lease) lists its drivers when that pass is still the directory; for an older pass it is moot.
 * Also the pure rules of the reads: a driver's position relative to a pass, and the DriverResult
 * status of a driver the current directory no longer lists.
 */
import { driverId } from '@switchyard/domain';
import type { DatasetStatusV1, DirectoryBatchV1 } from '@switchyard/messaging';
import type { Em } from '@switchyard/persistence';
import { DriverPassRepository, type RosterInterval } from '../db/repositories/driver-pass.repository.js';

type DriverBatch = Extract<DirectoryBatchV1, { kind: 'drivers' }>;

/** The pass a batch belongs to: its unit of its sync, or the batch alone when it has no unit. */
export function passKeyOf(batch: Pick<DirectoryBatchV1, 'syncId' | 'unitId' | 'batchId'>): string {
  return batch.unitId === null ? `batch:${batch.batchId}` : `unit:${batch.syncId ?? '-'}:${batch.unitId}`;
}

/**
 * Where a stored driver stands relative to completed pass `seq` (undefined: none completed):
 * `listed` — the pass carried it; `delisted` — an earlier complete pass listed it, this one did not
 * (removed at the provider, or no longer visible to the credential); `unlisted` — no complete pass
 * up to `seq` ever listed it (seen only by an unfinished pass).
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

export class DriverPassService {
  constructor(private readonly repository = new DriverPassRepository()) {}

  /** Records a drivers batch's place in its pass, inside the batch's transaction; completes the pass on its final page. */
  async record(em: Em, batch: DriverBatch): Promise<void> {
    const { connectionId, provider } = batch;
    const ids = [...new Set(batch.records.map((d) => driverId({ connectionId, provider, sourceId: d.sourceId })))];
    const passKey = passKeyOf(batch);
    await this.repository.lock(em, connectionId);
    const completed = await this.repository.completedSeq(em, connectionId, passKey);
    if (completed !== undefined) {
      if ((await this.repository.current(em, connectionId))?.seq === completed) await this.repository.listLate(em, connectionId, completed, ids);
      return;
    }
    await this.repository.sight(em, connectionId, passKey, ids, batch.fetchedAt);
    if (!batch.final) return;
    const current = await this.repository.current(em, connectionId);
    if (current && Date.parse(current.captured_at) > Date.parse(batch.fetchedAt)) return this.repository.dropSightings(em, connectionId, passKey);
    await this.repository.complete(em, { connectionId, passKey, syncId: batch.syncId, unitId: batch.unitId, capturedAt: batch.fetchedAt });
  }
}
