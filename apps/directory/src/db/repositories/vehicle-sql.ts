/**
 * The stored vehicle `v` as its public shapes, rendered by PostgreSQL (decision 0028; spec 2.3,
 * 2.6) — the one place a stored vehicle row becomes a CoreVehicle, an ExpandedVehicle /
 * VehicleEntity or its metadata cells, and where the one visibility rule is written:
 *
 * Visibility (spec 2.6 metadata.visibility; decision 0029 publishes its result to the other
 * contexts), first match wins: `includeVehicleIds` non-empty and the source id not in it →
 * `hidden_by_include_list`; the source id in `excludeVehicleIds` → `hidden_by_exclude_list`;
 * `includeStatuses` non-empty and the entity status not in it → `hidden_by_status` (an unknown
 * status — not stored, or not reported — is in no list: a filter never leaks by default);
 * otherwise `visible`. The lists hold provider source ids.
 *
 * Entity status: the stored status column when it is `active` or `inactive` (the provider's, or for
 * a provider that reports none the one derived from the roster passes, decision 0011); otherwise
 * unknown — such a vehicle is no VehicleEntity and no expansion (status is required), and under a
 * status filter it is hidden.
 *
 * ExpandedVehicle: values from the stored Field envelopes only when `available` and within the
 * contract (`jsonShapeSql` over expandedVehicleV1's members: strings ≤ 1024, year 1886-2200, the
 * fuel enum; date-times in the wire format); group memberships are the provider group ids of the
 * `groups` cell minted into group_ ids of the connection (`entityIdSql`, SHA-256 as libs/domain
 * `entityId`), unique in reported order, more than 1000 cut to 1000 and marked `partial`; with
 * `expand=groups` each stored group is an ExpandedGroup (groups-read.repository.ts).
 *
 * Metadata cells (VehicleMetadataResponse): all 15, a stored available value served only when it
 * passes its value schema (VEHICLE_METADATA_VALUE_SCHEMAS; times converted to the wire format),
 * else `invalid`; unavailable cells keep their status (`missing` for anything else) and source;
 * a source outside 1-1024 characters becomes the record's metadata source; the `status` cell of a
 * provider that reports none (stored `unsupported`) is the derived status once there is one.
 */
import { vehicleMetadataSource } from '@switchyard/contracts';
import { derivedSource, PROVIDERS, VEHICLE_METADATA_KEYS, type VisibilityRules } from '@switchyard/domain';
import { expandedVehicleV1, isoDateTimeV1, VEHICLE_METADATA_VALUE_SCHEMAS, vehicleMetadataFieldsV1, wireDateTimeV1 } from '@switchyard/messaging';
import { isoSql } from '@switchyard/persistence';
import { jsonShapeSql } from '@switchyard/service-kit';
import type { z } from 'zod';
import { groupListJoinSql } from './groups-read.repository.js';
import { entityIdSql, knownProviderSql, literal, wireTimeSql } from './read-sql.js';

/** The entity status of a stored status column (NULL: unknown). */
export const entityStatusSql = (status: string) => `(case when ${status} in ('active', 'inactive') then ${status} end)`;

/** The visibility of a vehicle with `sourceId` and entity status `status` (NULL: unknown) under `rules` (jsonb). */
export const visibilitySql = (sourceId: string, status: string, rules: string) => `(case
    when jsonb_array_length(${rules} -> 'includeVehicleIds') > 0 and not jsonb_exists(${rules} -> 'includeVehicleIds', ${sourceId}) then 'hidden_by_include_list'
    when jsonb_exists(${rules} -> 'excludeVehicleIds', ${sourceId}) then 'hidden_by_exclude_list'
    when jsonb_array_length(${rules} -> 'includeStatuses') > 0 and not coalesce(jsonb_exists(${rules} -> 'includeStatuses', ${status}), false) then 'hidden_by_status'
    else 'visible' end)`;

/** The rules as the visibility SQL reads them (one jsonb parameter). */
export const rulesParam = (rules: VisibilityRules) => JSON.stringify({ includeVehicleIds: rules.includeVehicleIds, excludeVehicleIds: rules.excludeVehicleIds, includeStatuses: rules.includeStatuses });

/** The stored vehicle `v` is shown under `rules`. */
export const vehicleVisibleSql = (v: string, rules: string) => `${visibilitySql(`${v}.source_id`, entityStatusSql(`${v}.status`), rules)} = 'visible'`;

/** The stored vehicle `v` can be an ExpandedVehicle / VehicleEntity. */
export const vehicleEntitySql = (v: string) => `(${entityStatusSql(`${v}.status`)} is not null and ${knownProviderSql(`${v}.provider`)})`;

const cell = (v: string, key: string) => `(${v}.metadata -> ${literal(key)})`;
const availableValue = (f: string) => `case when ${f} ->> 'status' = 'available' then ${f} -> 'value' end`;
/** `value` (jsonb) when it passes `schema`, else NULL. */
const checked = (schema: z.ZodType, value: string) => `case when ${jsonShapeSql(schema, value)} then ${value} end`;
/** A date-time value (jsonb) in the wire format when the contract accepts it, else NULL. */
const wireTime = (value: string) => `case when ${jsonShapeSql(isoDateTimeV1, value)} then to_jsonb(${wireTimeSql(`(${value} #>> '{}')`)}) end`;

const shape = expandedVehicleV1.shape;
const text = (value: string) => checked(shape.name.unwrap(), value);

/**
 * The group memberships of `v` as groupListJoinSql joins them (`ids`, `cut`), minted from the
 * provider group ids of its `groups` cell; NULL when the memberships are not available, or when
 * `when` (a boolean SQL expression: the vehicle is rendered at all) is false.
 */
export function vehicleGroupsJoinSql(t: (table: string) => string, v: string, alias: string, expand: string, when = 'true'): string {
  const value = `${cell(v, 'groups')} -> 'value'`;
  const minted = `select ${entityIdSql('group', `${v}.connection_id::text`, `${v}.provider`, "e.g ->> 'id'")} as id, e.n
      from jsonb_array_elements(case when jsonb_typeof(${value}) = 'array' then ${value} else '[]'::jsonb end) with ordinality e(g, n)
     where jsonb_typeof(e.g -> 'id') = 'string' and e.g ->> 'id' <> ''`;
  return groupListJoinSql(t, `${v}.connection_id`, minted, alias, expand, `${when} and ${cell(v, 'groups')} ->> 'status' = 'available'`);
}

/**
 * The ExpandedVehicle of the shown vehicle `v` (jsonb) with its groups from the lateral join
 * `groups` (vehicleGroupsJoinSql); `directoryFetchedAt` is a text SQL expression (NULL before the
 * group directory's first batch).
 */
export function expandedVehicleSql(v: string, groups: string, directoryFetchedAt: string): string {
  const value = (key: string) => availableValue(cell(v, key));
  const plateNumber = text(value('licensePlate'));
  const plateState = text(value('licensePlateRegion'));
  const membership = `jsonb_build_object('status', case when ${groups}.ids is null then case when ${cell(v, 'groups')} ->> 'status' = 'invalid' then 'invalid' else 'missing' end when ${groups}.cut then 'partial' else 'available' end,
      'scope', 'credential_visible_directory', 'sourceScope', 'credential_visible_reported_memberships',
      'capturedAt', case when ${groups}.ids is not null then ${isoSql(`${v}.fetched_at`)} end, 'directoryFetchedAt', ${directoryFetchedAt})`;
  return `(jsonb_strip_nulls(jsonb_build_object('id', ${v}.id, 'sourceId', ${v}.source_id, 'provider', ${v}.provider, 'status', ${entityStatusSql(`${v}.status`)},
      'name', ${text(`to_jsonb(${v}.name)`)}, 'vin', ${text(`to_jsonb(${v}.vin)`)}, 'make', ${text(value('make'))}, 'model', ${text(value('model'))},
      'year', ${checked(shape.year.unwrap(), value('year'))}, 'fuelType', ${checked(shape.fuelType.unwrap(), value('fuelType'))},
      'licensePlate', case when ${plateNumber} is not null or ${plateState} is not null then jsonb_build_object('number', ${plateNumber}, 'state', ${plateState}) end,
      'createdAt', ${wireTime(value('createdAt'))}, 'updatedAt', ${wireTime(value('updatedAt'))},
      'groups', ${groups}.ids,
      'metadata', jsonb_build_object('addedAt', ${isoSql(`${v}.first_seen_at`)}, 'modifiedAt', ${isoSql(`${v}.modified_at`)}, 'visibility', 'visible')))
    || jsonb_build_object('groupMembership', ${membership}))`;
}

/** The CoreVehicle of `v` (jsonb): the provider id stands for a name the provider did not report usably; vin null when unknown. */
export const coreVehicleSql = (v: string) =>
  `jsonb_build_object('id', ${v}.id, 'provider_id', ${v}.source_id, 'name', case when length(${v}.name) between 1 and 1024 then ${v}.name else ${v}.source_id end, 'vin', ${v}.vin)`;

/** `case` of a per-provider constant. */
const perProvider = (v: string, of: (provider: (typeof PROVIDERS)[number]) => string) => `(case ${v}.provider ${PROVIDERS.map((p) => `when ${literal(p)} then ${literal(of(p))}`).join(' ')} end)`;

/** The 15 metadata cells of the stored vehicle `v` of a known provider (jsonb). */
export function metadataFieldsSql(v: string): string {
  const fallback = perProvider(v, vehicleMetadataSource);
  const sourceRule = vehicleMetadataFieldsV1.shape.make.options[1].shape.source;
  const cells = VEHICLE_METADATA_KEYS.map((key) => {
    const f = cell(v, key);
    const source = `case when ${jsonShapeSql(sourceRule, `(${f} -> 'source')`)} then ${f} -> 'source' else to_jsonb(${fallback}) end`;
    const schema = VEHICLE_METADATA_VALUE_SCHEMAS[key];
    const served = schema === wireDateTimeV1 ? wireTime(`(${f} -> 'value')`) : checked(schema, `(${f} -> 'value')`);
    const derived =
      key === 'status'
        ? `when ${f} ->> 'status' = 'unsupported' and ${entityStatusSql(`${v}.status`)} is not null
             then jsonb_build_object('status', 'available', 'value', ${v}.status, 'source', ${perProvider(v, (p) => derivedSource(vehicleMetadataSource(p), 'derived_from_roster'))})`
        : '';
    return `${literal(key)}, case ${derived}
        when ${f} ->> 'status' = 'available' then coalesce((select jsonb_build_object('status', 'available', 'value', s.value, 'source', ${source}) from (select ${served} as value) s where s.value is not null),
          jsonb_build_object('status', 'invalid', 'value', null, 'source', ${source}))
        else jsonb_build_object('status', case when ${f} ->> 'status' in ('unsupported', 'invalid') then ${f} ->> 'status' else 'missing' end, 'value', null, 'source', ${source}) end`;
  });
  return `jsonb_build_object(${cells.join(',\n')})`;
}
