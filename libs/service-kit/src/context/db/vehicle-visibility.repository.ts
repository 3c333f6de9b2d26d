/**
 * SQL of the vehicle-visibility projection (`vehicle_visibility`: the newest hidden-vehicle set of
 * each connection, from the directory's `events.vehicle.visibility.<connectionId>`), shared by the
 * contexts that serve vehicle data (telemetry-ingest, fault-feed). A set only moves forward: the
 * upsert applies when the incoming `sequence` is higher than the stored one, so redelivered or
 * reordered sets change nothing. Readers may also join the table in their own SQL.
 */
import { query, tableNamer, type Em } from '@switchyard/persistence';
import type { VehicleVisibilityChangedV1 } from '@switchyard/messaging';

export type HiddenVehicles = VehicleVisibilityChangedV1['hidden'];

export interface VisibilitySet {
  sequence: string;
  hidden: HiddenVehicles;
}

export class VehicleVisibilityStore {
  /** Keeps the set with the highest sequence; true when applied. */
  async apply(em: Em, set: Pick<VehicleVisibilityChangedV1, 'connectionId' | 'sequence' | 'configRevision' | 'hidden'>): Promise<boolean> {
    const t = tableNamer(em)('vehicle_visibility');
    const rows = await query<{ connection_id: string }>(
      em,
      `insert into ${t} (connection_id, sequence, config_revision, hidden) values (?::uuid, ?::bigint, ?, ?::jsonb)
       on conflict (connection_id) do update set sequence = excluded.sequence, config_revision = excluded.config_revision, hidden = excluded.hidden, received_at = now()
       where ${t}.sequence < excluded.sequence
       returning connection_id`,
      [set.connectionId, set.sequence, set.configRevision, JSON.stringify(set.hidden)],
    );
    return rows.length > 0;
  }

  /** The newest set of the connection; undefined before its first event. */
  async get(em: Em, connectionId: string): Promise<VisibilitySet | undefined> {
    const [row] = await query<VisibilitySet>(em, `select sequence::text as sequence, hidden from ${tableNamer(em)('vehicle_visibility')} where connection_id = ?::uuid`, [connectionId]);
    return row;
  }
}
