/**
 * `directory.read.drivers.list|get` v1: gateway → directory request/reply behind
 * GET /v1/connections/{id}/drivers (DriverDirectory) and …/drivers/{driverId} (DriverResult),
 * spec 2.5, 4.2. The directory answers from its last stored directory (no provider contact) with
 * public Driver objects; the gateway signs the keyset position and horizon into `next`.
 * Invariant: `driverV1` is exactly the public Driver (no extra properties): sourceId pattern, E.164
 * phone, email format, license.state from the spec's list, at most 1000 unique groups (group_ ids,
 * or Groups with `expand=groups`), every availability key, the closed groupMembership object.
 * Errors: `not_found` (no such driver on this connection), `service_unavailable` (migrations pending).
 */
import {
  DRIVER_AVAILABILITY_KEYS,
  GROUP_MEMBERSHIP_SCOPES,
  GROUP_MEMBERSHIP_SOURCE_SCOPES,
  GROUP_MEMBERSHIP_STATUSES,
  GROUPS_PER_ENTITY,
  INVENTORY_STATUSES,
  LICENSE_STATES,
  PHONE_PATTERN,
} from '@switchyard/contracts';
import { AVAILABILITY_STATUSES, GROUP_MEMBERSHIP_REASON_CODES, ID_PATTERNS } from '@switchyard/domain';
import { z } from 'zod';
import type { RpcDefinition } from '../port.js';
import { datasetStatusV1, isoDateTimeV1, readPageReplyFields, readPageRequestFields } from './directory-read.v1.js';
import { flatGroupV1 } from './directory-read-groups.v1.js';
import { tripDriverV1 } from './directory-read-trips.v1.js';

const driverIdV1 = z.string().regex(new RegExp(ID_PATTERNS.driver));
const groupIdV1 = z.string().regex(new RegExp(ID_PATTERNS.group));
const availabilityStatus = z.enum(AVAILABILITY_STATUSES);

/**
 * Driver.email (spec 2.5, format email). Zod's default address check lets a domain label start or
 * end with a hyphen or run past 63 characters ("ada@example-.com"), which RFC 5321's domain and the
 * JSON Schema `email` format refuse: such a value would be served as available and break the
 * contract. Same local part as zod's default; domain labels as RFC 1035 (letter or digit at both
 * ends, at most 63), a top-level label of letters.
 */
const DRIVER_EMAIL_PATTERN = /^(?!\.)(?!.*\.\.)[A-Za-z0-9_'+\-.]*[A-Za-z0-9_+-]@(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.)+[A-Za-z]{2,63}$/;
export const driverEmailV1 = z.email({ pattern: DRIVER_EMAIL_PATTERN });
export const driverPhoneV1 = z.string().regex(new RegExp(PHONE_PATTERN));

export const driverGroupMembershipV1 = z
  .object({
    status: z.enum(GROUP_MEMBERSHIP_STATUSES),
    scope: z.enum(GROUP_MEMBERSHIP_SCOPES),
    sourceScope: z.enum(GROUP_MEMBERSHIP_SOURCE_SCOPES),
    fetchedAt: isoDateTimeV1.nullable(),
    membershipCapturedAt: isoDateTimeV1,
    sourceAvailability: availabilityStatus,
    inventoryStatus: z.enum(INVENTORY_STATUSES),
    errorCode: z.enum(GROUP_MEMBERSHIP_REASON_CODES).optional(),
  })
  .strict();

export const driverAvailabilityV1 = z.object(Object.fromEntries(DRIVER_AVAILABILITY_KEYS.map((k) => [k, availabilityStatus])) as Record<(typeof DRIVER_AVAILABILITY_KEYS)[number], typeof availabilityStatus>).strict();

/** The public Driver: TripDriver's identity fields (directory-read-trips.v1.ts) with the Driver's constraints and relations. */
export const driverV1 = tripDriverV1.extend({
  email: driverEmailV1.optional(),
  phone: driverPhoneV1.optional(),
  license: z.object({ number: z.string().optional(), state: z.enum(LICENSE_STATES).optional() }).strict().optional(),
  groups: z.array(z.union([groupIdV1, flatGroupV1])).max(GROUPS_PER_ENTITY).optional(),
  groupMembership: driverGroupMembershipV1,
  metadata: z.object({ addedAt: isoDateTimeV1, modifiedAt: isoDateTimeV1, visibility: z.literal('visible') }).strict(),
  availability: driverAvailabilityV1,
});

export const driverExpandV1 = z.object({ groups: z.boolean() }).strict();

export const listDriversRequestV1 = z
  .object({
    ...readPageRequestFields,
    expand: driverExpandV1,
    /** Keyset position: the last driver id served (ascending id). */
    after: driverIdV1.optional(),
  })
  .strict();

export const listDriversReplyV1 = z
  .object({
    ...readPageReplyFields,
    drivers: z.array(driverV1).max(100),
    /** The last driver served; present exactly when hasMore. */
    next: driverIdV1.optional(),
  })
  .strict();

export const getDriverRequestV1 = z.object({ connectionId: z.uuid(), driverId: driverIdV1, expand: driverExpandV1 }).strict();
export const getDriverReplyV1 = z.object({ dataset: datasetStatusV1, driver: driverV1 }).strict();

export const DIRECTORY_DRIVERS_RPCS = {
  list: { subject: 'directory.read.drivers.list', request: listDriversRequestV1, response: listDriversReplyV1 },
  get: { subject: 'directory.read.drivers.get', request: getDriverRequestV1, response: getDriverReplyV1 },
} as const satisfies Record<string, RpcDefinition>;

export type DriverV1 = z.output<typeof driverV1>;
export type DriverGroupMembershipV1 = z.output<typeof driverGroupMembershipV1>;
export type DriverAvailabilityV1 = z.output<typeof driverAvailabilityV1>;
export type DriverExpandV1 = z.output<typeof driverExpandV1>;
export type ListDriversRequestV1 = z.output<typeof listDriversRequestV1>;
export type ListDriversReplyV1 = z.output<typeof listDriversReplyV1>;
export type GetDriverRequestV1 = z.output<typeof getDriverRequestV1>;
export type GetDriverReplyV1 = z.output<typeof getDriverReplyV1>;
