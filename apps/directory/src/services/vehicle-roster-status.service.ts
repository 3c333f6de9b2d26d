/**
 * A vehicle status derived from the roster (decision 0011, "A status derived from the roster"), for
 * a provider that reports no vehicle status at all — its adapter's status cell is `unsupported`
 * (Samsara). The spec's VehicleEntity needs `active` or `inactive`; the directory owns the roster
 * passes, so it derives one: `active` while the last complete vehicles pass lists the vehicle,
 * `inactive` once a complete pass no longer does, unknown (NULL: an asset, no profile) until a
 * complete pass first lists it. It is stored in the `status` column beside the provider's verbatim
 * metadata (whose status cell stays `unsupported`), so every read of the status — profiles, the
 * single read, trips' `expand=vehicle`, the visibility rule — serves it as it serves a reported
 * one; the metadata read names the derivation in the cell's source (`derived_from_roster`,
 * vehicle-entity.mapper.ts). A status the provider should report but did not (`missing`,
 * `invalid`) is never derived: it stays unknown.
 * Both steps run in the batch's transaction after its pass was recorded (roster-pass.service.ts):
 * - `forBatch`: the batch's own rows are written with the roster's status, so a newer page of a
 *   listed vehicle changes nothing (no status flap, no modifiedAt bump while a new pass runs);
 * - `follow`: when the batch changed the roster (its pass completed, or a late page of the current
 *   pass listed vehicles), every derived status of the connection follows it.
 */
import { vehicleId, type RecordStatus } from '@switchyard/domain';
import type { DirectoryBatchV1 } from '@switchyard/messaging';
import type { Em } from '@switchyard/persistence';
import { VehicleRosterStatusRepository } from '../db/repositories/vehicle-roster-status.repository.js';

type VehiclesBatch = Extract<DirectoryBatchV1, { kind: 'vehicles' }>;

/** The provider supplies no status for this vehicle (its adapter says `unsupported`): the directory derives one. */
export const derivesStatus = (record: VehiclesBatch['records'][number]): boolean => record.metadata.status.status === 'unsupported';

export class VehicleRosterStatusService {
  constructor(private readonly repository = new VehicleRosterStatusRepository()) {}

  /** The derived status of each vehicle of the batch that needs one, by vehicle id (absent: unknown). */
  async forBatch(em: Em, batch: VehiclesBatch): Promise<Map<string, RecordStatus>> {
    const { connectionId, provider } = batch;
    const ids = batch.records.filter(derivesStatus).map((r) => vehicleId({ connectionId, provider, sourceId: r.sourceId }));
    return this.repository.statuses(em, connectionId, [...new Set(ids)]);
  }

  /** The roster changed in this transaction: every derived status of the connection follows it. */
  follow(em: Em, batch: VehiclesBatch): Promise<number> {
    return this.repository.follow(em, batch.connectionId, batch.fetchedAt);
  }
}
