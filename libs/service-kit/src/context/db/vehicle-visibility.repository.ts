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
 * does not list it as hidden; (3) under a status filter (the set's `shown` present, or the held
 * configuration's `includeStatuses` non-empty) the set lists it as shown — a vehicle the directory
 * never stored has no status and stays hidden, as in the directory's own reads; (4) the
 * include/exclude lists of the configuration this context holds admit its provider id (a list
 * change hides at once, before the directory's next set). The configuration's parts apply only in
 * a context that holds the configuration projection and the provider id (`lists: false`, e.g.
 * enrichment, relies on the set alone); each part can only hide, never show.
 */
import { query, readQuery, tableNamer, type Em } from '@switchyard/persistence';
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
 * (exactly one row: whether the set arrived, whether a status filter applies, the lists' provider
 * ids), `hidden_vehicle` and `shown_vehicle` (the set's vehicle ids, one row each, so a reader's
 * joins can hash them). Put after `with`.
 */
export function visibilityCte(t: (table: string) => string, options: VisibilityOptions = {}): string {
  const held = options.lists !== false;
  const list = (name: string) => (held ? `array(select jsonb_array_elements_text(c.config->'${name}'))` : `'{}'::text[]`);
  const statusFilter = held ? `s.shown is not null or coalesce(c.config->'includeStatuses', '[]'::jsonb) <> '[]'::jsonb` : 's.shown is not null';
  const setOf = (column: string, member: string) =>
    `select ${member} as vehicle_id from visibility_key k join ${t('vehicle_visibility')} s on s.connection_id = k.connection_id cross join jsonb_array_elements(s.${column}) m`;
  return `visibility_key as (select ?::uuid as connection_id),
    visibility_rule as (
      select s.connection_id is not null as arrived, coalesce(${statusFilter}, false) as status_filter,
             ${list('includeVehicleIds')} as include_ids, ${list('excludeVehicleIds')} as exclude_ids
        from visibility_key k ${held ? `left join ${t('connection_config')} c on c.connection_id = k.connection_id` : ''}
        left join ${t('vehicle_visibility')} s on s.connection_id = k.connection_id),
    hidden_vehicle as (${setOf('hidden', "m->>'vehicleId'")}),
    shown_vehicle as (${setOf('shown', 'm #>> \'{}\'')} where s.shown is not null)`;
}

/** The predicate over a row's `vcl_` id and provider id expressions (a statement using `visibilityCte`): true when the vehicle is shown. */
export function visibleVehicleSql(vehicleId: string, sourceId: string): string {
  return `exists (select 1 from visibility_rule r where r.arrived
      and (cardinality(r.include_ids) = 0 or ${sourceId} = any(r.include_ids)) and not coalesce(${sourceId} = any(r.exclude_ids), false)
      and (not r.status_filter or exists (select 1 from shown_vehicle x where x.vehicle_id = ${vehicleId})))
    and not exists (select 1 from hidden_vehicle h where h.vehicle_id = ${vehicleId})`;
}

export class VehicleVisibilityStore {
  constructor(private readonly options: VisibilityOptions = {}) {}

  /** Keeps the set with the highest sequence; true when applied. */
  async apply(em: Em, set: Pick<VehicleVisibilityChangedV1, 'connectionId' | 'sequence' | 'configRevision' | 'hidden' | 'shown'>): Promise<boolean> {
    const t = tableNamer(em)('vehicle_visibility');
    const rows = await query<{ connection_id: string }>(
      em,
      `insert into ${t} (connection_id, sequence, config_revision, hidden, shown) values (?::uuid, ?::bigint, ?, ?::jsonb, ?::jsonb)
       on conflict (connection_id) do update set sequence = excluded.sequence, config_revision = excluded.config_revision, hidden = excluded.hidden, shown = excluded.shown, received_at = now()
       where ${t}.sequence < excluded.sequence
       returning connection_id`,
      [set.connectionId, set.sequence, set.configRevision, JSON.stringify(set.hidden), set.shown === undefined ? null : JSON.stringify(set.shown)],
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
    // Prepared (readQuery): the rule's CTEs cost PostgreSQL ~0.5 ms to plan, more than they take to run.
    const rows = await readQuery<{ vehicle_id: string }>(
      em,
      `with ${visibilityCte(tableNamer(em), this.options)}
       select v.vehicle_id from json_to_recordset(?::json) as v(vehicle_id text, source_id text) where ${visibleVehicleSql('v.vehicle_id', 'v.source_id')}`,
      [connectionId, JSON.stringify(vehicles.map((v) => ({ vehicle_id: v.vehicleId, source_id: v.sourceId })))],
    );
    return new Set(rows.map((r) => r.vehicle_id));
  }
}
