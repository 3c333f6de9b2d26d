/**
 * Stored driver row → the public Driver (spec 2.5). Missing data is a status, never a made-up value:
 * each of the 11 availability keys reports the stored Field's status, and a value appears only when
 * it is `available` AND meets the public constraint — an email that is not an email, a phone not in
 * E.164 shape, a license state outside the spec's list or a time the reply schema refuses (`isWireDateTime`) is omitted and
 * reported `invalid`. A driver without a known status, an unknown provider or a source id outside the
 * spec's pattern cannot be a Driver (required, constrained fields): `driverOf` returns undefined and
 * the read skips it (by id: 404) rather than invent one.
 *
 * groups / groupMembership: the memberships the provider reported with the driver (credential
 * visible), as group_ ids of the same connection, unique, at most 1000 (more are cut: `partial`);
 * with `expand=groups` each stored group is a Group (its parent an id), an unstored one stays an id.
 * groupMembership.status: the membership Field's status when it is not available, `partial` when
 * cut, else the driver directory's own status; fetchedAt = fetch time of the newest group directory
 * batch; membershipCapturedAt = fetch time of the stored driver (memberships come with it);
 * inventoryStatus = `disabled` without the groupInventory opt-in, else the group dataset's status;
 * errorCode = the degrading reason when it is one of the membership reason codes.
 */
import { DRIVER_AVAILABILITY_KEYS, GROUPS_PER_ENTITY, isLicenseState } from '@switchyard/contracts';
import { GROUP_MEMBERSHIP_REASON_CODES, isProvider, toWireDateTime, type AvailabilityStatus, type Field } from '@switchyard/domain';
import {
  driverEmailV1,
  driverPhoneV1,
  isWireDateTime,
  type DatasetStatusV1,
  type DriverAvailabilityV1,
  type DriverGroupMembershipV1,
  type DriverV1,
  type FlatGroupV1,
} from '@switchyard/messaging';
import { DRIVER_SOURCE_ID_PATTERN } from '@switchyard/contracts';
import type { DriverDirectoryRow } from '../db/repositories/drivers-read.repository.js';
import { withoutUndefined } from './vehicle.mapper.js';

const SOURCE_ID = new RegExp(DRIVER_SOURCE_ID_PATTERN);

export interface DriverMapContext {
  /** Status of the connection's driver dataset (available, stale or degraded once a driver is stored). */
  drivers: DatasetStatusV1;
  /** Status of the connection's group dataset. */
  groups: DatasetStatusV1;
  /** The connection's groupInventory opt-in. */
  inventoryEnabled: boolean;
  /** Stored groups by id, when `expand=groups`. */
  expandedGroups?: ReadonlyMap<string, FlatGroupV1>;
}

type Key = (typeof DRIVER_AVAILABILITY_KEYS)[number];
const VALID: Partial<Record<Key, (v: string) => boolean>> = {
  email: (v) => driverEmailV1.safeParse(v).success,
  phone: (v) => driverPhoneV1.safeParse(v).success,
  licenseState: isLicenseState,
  createdAt: isWireDateTime,
  updatedAt: isWireDateTime,
};

/** Each field's public value (only when available and valid) and its availability. */
function fieldsOf(stored: Record<string, Field<string>>): { values: Partial<Record<Key, string>>; availability: DriverAvailabilityV1 } {
  const values: Partial<Record<Key, string>> = {};
  const availability = {} as Record<Key, AvailabilityStatus>;
  for (const key of DRIVER_AVAILABILITY_KEYS) {
    const f = stored[key];
    if (!f) {
      availability[key] = 'missing';
      continue;
    }
    if (f.status !== 'available') {
      availability[key] = f.status;
      continue;
    }
    const valid = typeof f.value === 'string' && (VALID[key]?.(f.value) ?? true);
    availability[key] = valid ? 'available' : 'invalid';
    if (valid) values[key] = key === 'createdAt' || key === 'updatedAt' ? toWireDateTime(f.value) : f.value;
  }
  return { values, availability };
}

export const DRIVER_MEMBERSHIP_SCOPE = 'credential_visible_directory' as const;

/** Group ids the driver's memberships name, unique, in stored order; `cut` when over the limit. */
export function memberGroupIds(row: DriverDirectoryRow): { ids: string[]; cut: boolean } | undefined {
  if (row.group_membership.status !== 'available' || row.group_ids === null) return undefined;
  const ids = [...new Set(row.group_ids)];
  return { ids: ids.slice(0, GROUPS_PER_ENTITY), cut: ids.length > GROUPS_PER_ENTITY };
}

function membershipOf(row: DriverDirectoryRow, ctx: DriverMapContext, members: { cut: boolean } | undefined): DriverGroupMembershipV1 {
  const source = row.group_membership.status;
  const own = ctx.drivers.status === 'pending' ? 'available' : ctx.drivers.status;
  const status = source !== 'available' ? source : members?.cut ? 'partial' : own;
  const code = ctx.drivers.errorCode;
  const errorCode = status === 'degraded' && (GROUP_MEMBERSHIP_REASON_CODES as readonly (string | null)[]).includes(code) ? (code as DriverGroupMembershipV1['errorCode']) : undefined;
  return withoutUndefined<DriverGroupMembershipV1>({
    status,
    scope: DRIVER_MEMBERSHIP_SCOPE,
    sourceScope: source === 'available' ? 'credential_visible' : 'unknown',
    fetchedAt: ctx.groups.fetchedAt,
    membershipCapturedAt: row.fetched_at,
    sourceAvailability: source,
    inventoryStatus: ctx.inventoryEnabled ? ctx.groups.status : 'disabled',
    errorCode,
  });
}

export function driverOf(row: DriverDirectoryRow, ctx: DriverMapContext): DriverV1 | undefined {
  if ((row.status !== 'active' && row.status !== 'inactive') || !SOURCE_ID.test(row.source_id) || !isProvider(row.provider)) return undefined;
  const { values, availability } = fieldsOf(row.fields);
  const members = memberGroupIds(row);
  const groups = members?.ids.map((id) => ctx.expandedGroups?.get(id) ?? id);
  const licenseState = values.licenseState;
  return withoutUndefined<DriverV1>({
    id: row.id,
    sourceId: row.source_id,
    provider: row.provider,
    status: row.status,
    firstName: values.firstName,
    middleName: values.middleName,
    lastName: values.lastName,
    displayName: values.displayName,
    username: values.username,
    email: values.email,
    phone: values.phone,
    license:
      values.licenseNumber !== undefined || licenseState !== undefined
        ? { number: values.licenseNumber, state: isLicenseState(licenseState) ? licenseState : undefined }
        : undefined,
    createdAt: values.createdAt,
    updatedAt: values.updatedAt,
    groups,
    groupMembership: membershipOf(row, ctx, members),
    metadata: { addedAt: row.added_at, modifiedAt: row.modified_at, visibility: 'visible' },
    availability,
  });
}
