/**
 * The stored driver `d` as its public shapes, rendered by PostgreSQL (decision 0028; spec 2.5,
 * 2.7) — the one place a stored driver row becomes a Driver or a TripDriver:
 * - a row that cannot be one (status neither active nor inactive, a source id outside the spec's
 *   pattern, an unknown provider) is left out by `driverShownSql`, never padded out;
 * - each field's value appears only when its stored Field is `available` and a string; a Driver also
 *   needs it to meet the contract (email, E.164 phone, license state, date-time: `jsonShapeSql` over
 *   the contract's zod schemas) and reports every availability key (`missing` without a Field, its
 *   status when not available, `invalid` when the value fails); a TripDriver takes the strings as
 *   they are (its email, phone and license state are plain strings); times in the wire format;
 * - groups: the stored group_ ids of an `available` membership, unique in stored order, at most
 *   1000 (more: membership `partial`); with `expand=groups` each stored group an ExpandedGroup
 *   (groups-read.repository.ts `flatGroupSql`), an unstored one an id;
 * - groupMembership from the read's dataset context (one jsonb parameter: the driver dataset's own
 *   status, its degrading code when it is a membership code, the group dataset's fetch time and
 *   the inventory status) and the row's membership Field.
 */
import { DRIVER_AVAILABILITY_KEYS, DRIVER_SOURCE_ID_PATTERN, LICENSE_STATES } from '@switchyard/contracts';
import { GROUP_MEMBERSHIP_REASON_CODES } from '@switchyard/domain';
import { driverEmailV1, driverPhoneV1, isoDateTimeV1, type DatasetStatusV1 } from '@switchyard/messaging';
import { isoSql } from '@switchyard/persistence';
import { jsonShapeSql } from '@switchyard/service-kit';
import { z } from 'zod';
import { groupListJoinSql } from './groups-read.repository.js';
import { knownProviderSql, literal, wireTimeSql } from './read-sql.js';

type Key = (typeof DRIVER_AVAILABILITY_KEYS)[number];

/** The contract's rule for a Driver value beyond being a string (none: any string). */
const CHECKS: Partial<Record<Key, z.ZodType>> = {
  email: driverEmailV1,
  phone: driverPhoneV1,
  licenseState: z.enum(LICENSE_STATES),
  createdAt: isoDateTimeV1,
  updatedAt: isoDateTimeV1,
};
const TIMES: readonly Key[] = ['createdAt', 'updatedAt'];

const field = (d: string, key: Key) => `(${d}.fields -> ${literal(key)})`;
const isString = (d: string, key: Key) => `(${field(d, key)} ->> 'status' = 'available' and jsonb_typeof(${field(d, key)} -> 'value') = 'string')`;

/** The Field's value passes the Driver's rule (checked: a Driver) or is a string (a TripDriver; times must still be date-times). */
function valid(d: string, key: Key, checked: boolean): string {
  const check = CHECKS[key];
  const rule = check && (checked || TIMES.includes(key)) ? ` and ${jsonShapeSql(check, `(${field(d, key)} -> 'value')`)}` : '';
  return `(${isString(d, key)}${rule})`;
}

/** The public text of the key (jsonb), NULL when it is not served. */
function value(d: string, key: Key, checked: boolean): string {
  const text = `(${field(d, key)} ->> 'value')`;
  return `case when ${valid(d, key, checked)} then ${TIMES.includes(key) ? `to_jsonb(${wireTimeSql(text)})` : `(${field(d, key)} -> 'value')`} end`;
}

const DRIVER_SOURCE_ID = z.string().regex(new RegExp(DRIVER_SOURCE_ID_PATTERN));

/** Rows that can be a Driver or TripDriver. */
export const driverShownSql = (d: string) =>
  `(${d}.status in ('active', 'inactive') and ${jsonShapeSql(DRIVER_SOURCE_ID, `to_jsonb(${d}.source_id)`)} and ${knownProviderSql(`${d}.provider`)})`;

/** `jsonb_build_object` members of the identity a Driver and a TripDriver share (NULL members are stripped by the caller). */
function identity(d: string, checked: boolean): string {
  const v = (key: Key) => value(d, key, checked);
  return `'id', ${d}.id, 'sourceId', ${d}.source_id, 'provider', ${d}.provider, 'status', ${d}.status,
    'firstName', ${v('firstName')}, 'middleName', ${v('middleName')}, 'lastName', ${v('lastName')}, 'displayName', ${v('displayName')},
    'email', ${v('email')}, 'phone', ${v('phone')}, 'username', ${v('username')},
    'createdAt', ${v('createdAt')}, 'updatedAt', ${v('updatedAt')},
    'license', case when ${valid(d, 'licenseNumber', checked)} or ${valid(d, 'licenseState', checked)} then jsonb_build_object('number', ${v('licenseNumber')}, 'state', ${v('licenseState')}) end`;
}

/** The TripDriver of `d` (jsonb), a trip's `expand=driver`. */
export const tripDriverSql = (d: string) =>
  `jsonb_strip_nulls(jsonb_build_object(${identity(d, false)}, 'metadata', jsonb_build_object('addedAt', ${isoSql(`${d}.first_seen_at`)}, 'modifiedAt', ${isoSql(`${d}.modified_at`)})))`;

/** What a Driver's groupMembership takes from the read's datasets (one jsonb parameter of `driverSql`). */
export interface MembershipContext {
  /** The driver dataset's status as a membership status (`pending` reads `available`). */
  own: string;
  /** The degrading code when it is a membership code, else null. */
  degradedCode: string | null;
  /** The group dataset's fetch time. */
  fetchedAt: string | null;
  inventoryStatus: string;
}

export function membershipContext(drivers: DatasetStatusV1, groups: DatasetStatusV1, inventoryEnabled: boolean): MembershipContext {
  return {
    own: drivers.status === 'pending' ? 'available' : drivers.status,
    degradedCode: drivers.status === 'degraded' && (GROUP_MEMBERSHIP_REASON_CODES as readonly (string | null)[]).includes(drivers.errorCode) ? drivers.errorCode : null,
    fetchedAt: groups.fetchedAt,
    inventoryStatus: inventoryEnabled ? groups.status : 'disabled',
  };
}

/** The Driver of `d` (jsonb), from the joins of `driverJoinsSql`. */
export function driverSql(d: string): string {
  const cut = 'coalesce(dg.cut, false)';
  const source = `(${d}.group_membership ->> 'status')`;
  const availability = DRIVER_AVAILABILITY_KEYS.map(
    (key) => `${literal(key)}, case when ${field(d, key)} is null then 'missing' when ${field(d, key)} ->> 'status' <> 'available' then ${field(d, key)} ->> 'status' when ${valid(d, key, true)} then 'available' else 'invalid' end`,
  ).join(', ');
  const membership = `jsonb_strip_nulls(jsonb_build_object(
      'status', case when ${source} <> 'available' then ${source} when ${cut} then 'partial' else x.ctx ->> 'own' end,
      'scope', 'credential_visible_directory', 'sourceScope', case when ${source} = 'available' then 'credential_visible' else 'unknown' end,
      'membershipCapturedAt', ${isoSql(`${d}.fetched_at`)}, 'sourceAvailability', ${source}, 'inventoryStatus', x.ctx ->> 'inventoryStatus',
      'errorCode', case when ${source} = 'available' and not ${cut} and x.ctx ->> 'own' = 'degraded' then x.ctx ->> 'degradedCode' end)) || jsonb_build_object('fetchedAt', x.ctx -> 'fetchedAt')`;
  return `(jsonb_strip_nulls(jsonb_build_object(${identity(d, true)}, 'groups', dg.ids,
      'metadata', jsonb_build_object('addedAt', ${isoSql(`${d}.first_seen_at`)}, 'modifiedAt', ${isoSql(`${d}.modified_at`)}, 'visibility', 'visible'),
      'availability', jsonb_build_object(${availability}))) || jsonb_build_object('groupMembership', ${membership}))`;
}

/**
 * The joins `driverSql` reads from: its parameters `x` (expand, then the membership context) and
 * the driver's groups `dg` (groupListJoinSql over its stored group ids, when the membership is
 * available).
 */
export function driverJoinsSql(t: (table: string) => string, d: string): string {
  return `cross join (select ?::boolean as expand, ?::jsonb as ctx) x
    ${groupListJoinSql(t, `${d}.connection_id`, `select id, n from unnest(${d}.group_ids) with ordinality g(id, n)`, 'dg', 'x.expand', `${d}.group_membership ->> 'status' = 'available' and ${d}.group_ids is not null`)}`;
}
