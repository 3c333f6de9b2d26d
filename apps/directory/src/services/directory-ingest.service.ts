/**
 * Turns a directory batch into table rows and writes them: mints the stable public ids
 * (`vcl_`/`drv_`/`group_`/`trp_` from connection + provider + source id, libs/domain ids.ts) and
 * keeps every Field envelope verbatim next to the plain columns used for filters.
 * Invariant: a record whose provider differs from the batch's is poison (its id would be minted
 * in another provider's space); a missing value stays NULL, never a zero or an empty string. A
 * vehicle's `status` column is its reported status, or — for a provider that supplies none — the
 * status the caller derived from the roster (vehicle-roster-status.service.ts); the metadata stays
 * the adapter's, verbatim.
 */
import { driverId, groupId, tripId, valueOf, vehicleId, type SourceRef } from '@switchyard/domain';
import { PoisonMessage, type DirectoryBatchV1 } from '@switchyard/messaging';
import type { Em } from '@switchyard/persistence';
import { DirectoryUpsertRepository, type DirectoryRow, type DirectoryTableSpec } from '../db/repositories/directory-upsert.repository.js';

const VEHICLE: DirectoryTableSpec = {
  table: 'vehicle',
  columns: { name: 'text', vin: 'text', status: 'text', name_field: 'jsonb', vin_field: 'jsonb', metadata: 'jsonb' },
};
const DRIVER: DirectoryTableSpec = {
  table: 'driver',
  columns: { status: 'text', display_name: 'text', status_field: 'jsonb', fields: 'jsonb', group_membership: 'jsonb', group_ids: 'text[]' },
};
const GROUP: DirectoryTableSpec = {
  table: 'group',
  columns: { name: 'text', name_field: 'jsonb', description_field: 'jsonb', parent_source_id: 'text', parent_id: 'text' },
};
const TRIP: DirectoryTableSpec = {
  table: 'trip',
  columns: {
    vehicle_id: 'text',
    vehicle_source_id: 'text',
    driver_id: 'text',
    driver_source_id: 'text',
    started_at: 'timestamptz',
    ended_at: 'timestamptz',
    duration_ms: 'bigint',
    distance_km: 'double precision',
    distance_basis: 'text',
    distance_field: 'jsonb',
    start_location: 'jsonb',
    end_location: 'jsonb',
  },
};

export class DirectoryIngestService {
  constructor(private readonly repository = new DirectoryUpsertRepository()) {}

  /** The stable vehicle ids of a vehicles batch's records (what the VIN outbox records after the write). */
  vehicleIds(batch: Extract<DirectoryBatchV1, { kind: 'vehicles' }>): string[] {
    return batch.records.map((v) => vehicleId({ connectionId: batch.connectionId, provider: batch.provider, sourceId: v.sourceId }));
  }

  /**
   * Writes the batch's records; returns how many records the batch carried (all are accepted).
   * `derivedStatuses`: by vehicle id, the roster-derived status of a vehicle whose provider reports none.
   */
  async apply(em: Em, batch: DirectoryBatchV1, derivedStatuses: ReadonlyMap<string, string> = new Map()): Promise<number> {
    const { connectionId, provider, batchId } = batch;
    for (const record of batch.records) {
      if (record.provider !== provider) throw new PoisonMessage('record_provider_mismatch', `batch ${batchId} carries a ${record.provider} record`);
    }
    const ref = (sourceId: string): SourceRef => ({ connectionId, provider, sourceId });
    const base = (sourceId: string, fetchedAt: string) => ({ connection_id: connectionId, provider, source_id: sourceId, fetched_at: fetchedAt, batch_id: batchId });
    let rows: DirectoryRow[];
    let spec: DirectoryTableSpec;
    switch (batch.kind) {
      case 'vehicles':
        spec = VEHICLE;
        rows = batch.records.map((v) => {
          const id = vehicleId(ref(v.sourceId));
          return {
            id,
            ...base(v.sourceId, v.fetchedAt),
            name: valueOf(v.name) ?? null,
            vin: valueOf(v.vin) ?? null,
            status: valueOf(v.metadata.status) ?? derivedStatuses.get(id) ?? null,
            name_field: v.name,
            vin_field: v.vin,
            metadata: v.metadata,
          };
        });
        break;
      case 'drivers':
        spec = DRIVER;
        rows = batch.records.map((d) => {
          const groups = valueOf(d.groupIds);
          return {
            id: driverId(ref(d.sourceId)),
            ...base(d.sourceId, d.fetchedAt),
            status: valueOf(d.status) ?? null,
            display_name: valueOf(d.fields.displayName) ?? null,
            status_field: d.status,
            fields: d.fields,
            group_membership: d.groupIds,
            // NULL = membership unknown (the Field says why); [] = known to be in no group.
            group_ids: groups ? groups.map((g) => groupId(ref(g))) : null,
          };
        });
        break;
      case 'groups':
        spec = GROUP;
        rows = batch.records.map((g) => ({
          id: groupId(ref(g.sourceId)),
          ...base(g.sourceId, g.fetchedAt),
          name: valueOf(g.name) ?? null,
          name_field: g.name,
          description_field: g.description,
          parent_source_id: g.parentSourceId,
          parent_id: g.parentSourceId === null ? null : groupId(ref(g.parentSourceId)),
        }));
        break;
      case 'trips':
        spec = TRIP;
        rows = batch.records.map((t) => ({
          id: tripId(ref(t.sourceId)),
          ...base(t.sourceId, t.fetchedAt),
          vehicle_id: vehicleId(ref(t.vehicleSourceId)),
          vehicle_source_id: t.vehicleSourceId,
          driver_id: t.driverSourceId === null ? null : driverId(ref(t.driverSourceId)),
          driver_source_id: t.driverSourceId,
          started_at: t.startedAt,
          ended_at: t.endedAt,
          duration_ms: t.durationMs,
          // Omitted (NULL) when missing or invalid; the basis says GPS or odometer difference.
          distance_km: valueOf(t.distanceKm) ?? null,
          distance_basis: t.distanceBasis,
          distance_field: t.distanceKm,
          start_location: t.startLocation,
          end_location: t.endLocation,
        }));
        break;
    }
    await this.repository.upsert(em, spec, rows);
    return batch.records.length;
  }
}
