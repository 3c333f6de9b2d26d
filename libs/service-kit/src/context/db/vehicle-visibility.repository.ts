/**
 * The vehicle-visibility projection (`vehicle_visibility`: the newest hidden-vehicle set of each
 * connection, from the directory's `events.vehicle.visibility.<connectionId>`) and THE visibility
 * rule every context's read applies (decision 0029), written once here as SQL:
 * - `apply`: a set only moves forward — the upsert applies when the incoming `sequence` is higher
 *   than the stored one, so redelivered or reordered sets change nothing;
 * - `visibilityCte` + `visibleVehicleSql`: what a read repository puts in its statement (one
 *   `?` — the connection id — first among its parameters) to leave hidden vehicles out;
 * - `visible`: the same predicate for vehicles named by the caller (one vehicle by id, a list).
 * The rule: a vehicle is shown only when (1) the directory's set for the connection has arrived —
 * before it, every vehicle is hidden, with or without a status filter (fail closed); (2) the set
 * does not list it; (3) the include/exclude lists of the configuration this context holds admit
 * its provider id (a list change hides at once, before the directory's next set). (3) applies only
 * in a context that holds the configuration projection and the provider id (`lists: false`, e.g.
 * enrichment, relies on the set for the lists too); each part can only hide, never show.
 */
import { query, tableNamer, type Em } from '@switchyard/persistence';
import type { VehicleVisibilityChangedV1 } from '@switchyard/messaging';

export type HiddenVehicles = VehicleVisibilityChangedV1['hidden'];

export interface VisibilitySet {
  sequence: string;
  hidden: HiddenVehicles;
}

/** A vehicle a read names: its `vcl_` id and its provider id (null when this context does not know it). */
export interface NamedVehicle {
  vehicleId: string;
  sourceId: string | null;
}

export interface VisibilityOptions {
  /** Apply the held configuration's include/exclude lists too (the context keeps `connection_config` and the provider id); default true. */
  lists?: boolean;
}

/**
 * The rule's CTEs for one connection (its id is the statement's FIRST `?`): `visibility_rule`
 * (exactly one row: whether the set arrived, the lists' provider ids) and `hidden_vehicle` (the
 * set's vehicle ids, one row each, so a reader's anti-join can hash them). Put after `with`.
 */
export function visibilityCte(t: (table: string) => string, options: VisibilityOptions = {}): string {
  const list = (name: string) => (options.lists === false ? `'{}'::text[]` : `array(select jsonb_array_elements_text(c.config->'${name}'))`);
  const config = options.lists === false ? '' : `left join ${t('connection_config')} c on c.connection_id = k.connection_id`;
  return `visibility_key as (select ?::uuid as connection_id),
    visibility_rule as (
      select s.connection_id is not null as arrived, ${list('includeVehicleIds')} as include_ids, ${list('excludeVehicleIds')} as exclude_ids
        from visibility_key k ${config} left join ${t('vehicle_visibility')} s on s.connection_id = k.connection_id),
    hidden_vehicle as (
      select h->>'vehicleId' as vehicle_id from visibility_key k join ${t('vehicle_visibility')} s on s.connection_id = k.connection_id cross join jsonb_array_elements(s.hidden) h)`;
}

/** The predicate over a row's `vcl_` id and provider id expressions (a statement using `visibilityCte`): true when the vehicle is shown. */
export function visibleVehicleSql(vehicleId: string, sourceId: string): string {
  return `exists (select 1 from visibility_rule r where r.arrived
      and (cardinality(r.include_ids) = 0 or ${sourceId} = any(r.include_ids)) and not coalesce(${sourceId} = any(r.exclude_ids), false))
    and not exists (select 1 from hidden_vehicle h where h.vehicle_id = ${vehicleId})`;
}

export class VehicleVisibilityStore {
  constructor(private readonly options: VisibilityOptions = {}) {}

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

  /** The `vcl_` ids among `vehicles` of the connection that the rule shows (the header; one statement). */
  async visible(em: Em, connectionId: string, vehicles: readonly NamedVehicle[]): Promise<Set<string>> {
    if (vehicles.length === 0) return new Set();
    const rows = await query<{ vehicle_id: string }>(
      em,
      `with ${visibilityCte(tableNamer(em), this.options)}
       select v.vehicle_id from json_to_recordset(?::json) as v(vehicle_id text, source_id text) where ${visibleVehicleSql('v.vehicle_id', 'v.source_id')}`,
      [connectionId, JSON.stringify(vehicles.map((v) => ({ vehicle_id: v.vehicleId, source_id: v.sourceId })))],
    );
    return new Set(rows.map((r) => r.vehicle_id));
  }
}
