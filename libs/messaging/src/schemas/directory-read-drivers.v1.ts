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
  driverIdSchema,
  GROUP_MEMBERSHIP_SCOPES,
  GROUP_MEMBERSHIP_SOURCE_SCOPES,
  GROUP_MEMBERSHIP_STATUSES,
  groupIdSchema,
  GROUPS_PER_ENTITY,
  DRIVER_DIRECTORY_STATUSES,
  DRIVER_RESULT_STATUSES,
  INVENTORY_STATUSES,
  LICENSE_STATES,
  PAGE_RANGES,
  PHONE_PATTERN,
} from '@switchyard/contracts';
import { AVAILABILITY_STATUSES, DRIVER_DIRECTORY_REASON_CODES, GROUP_MEMBERSHIP_REASON_CODES } from '@switchyard/domain';
import { z } from 'zod';
import { framedReply } from '../framed-reply.js';
import { addedModifiedFields, datasetStatusV1, DATASET_TIMES, nextCursorV1, readPageReplyFields, readPageRequestFields, storedRetrievalV1, wireDateTimeV1 } from './directory-read.v1.js';
import { flatGroupV1 } from './directory-read-groups.v1.js';
import { tripDriverV1 } from './directory-read-trips.v1.js';

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
export const driverPhoneV1 = z.string().regex(new RegExp(PHONE_PATTERN)).describe('E.164: plus sign, a digit 1-9, then 9 to 13 digits.');

export const driverGroupMembershipV1 = z
  .object({
    status: z
      .enum(GROUP_MEMBERSHIP_STATUSES)
      .describe("`missing`/`invalid`/`unsupported`: the provider did not give usable memberships. `partial`: more than 1000. Otherwise the driver directory's status."),
    scope: z.enum(GROUP_MEMBERSHIP_SCOPES),
    sourceScope: z.enum(GROUP_MEMBERSHIP_SOURCE_SCOPES),
    fetchedAt: wireDateTimeV1.nullable().describe('Fetch time of the newest committed batch of the group directory; null before the first.'),
    membershipCapturedAt: wireDateTimeV1.describe('Fetch time of the stored driver, which carried its memberships.'),
    sourceAvailability: availabilityStatus.describe('Whether the provider reported the memberships.'),
    inventoryStatus: z.enum(INVENTORY_STATUSES).describe('`disabled` without the groupInventory opt-in; otherwise the status of the stored groups.'),
    errorCode: z.enum(GROUP_MEMBERSHIP_REASON_CODES).describe('Why the membership is degraded; absent otherwise.').optional(),
  })
  .strict();

export const driverAvailabilityV1 = z
  .object(Object.fromEntries(DRIVER_AVAILABILITY_KEYS.map((k) => [k, availabilityStatus])) as Record<(typeof DRIVER_AVAILABILITY_KEYS)[number], typeof availabilityStatus>)
  .strict()
  .describe('Per field: `available` (the value is present), `missing` (not reported), `invalid` (reported but unusable: omitted), `unsupported` (the provider has no such field).');

/** The public Driver: TripDriver's identity fields (directory-read-trips.v1.ts) with the Driver's constraints and relations. */
export const driverV1 = tripDriverV1.extend({
  email: driverEmailV1.optional(),
  phone: driverPhoneV1.optional(),
  license: z.object({ number: z.string().optional(), state: z.enum(LICENSE_STATES).optional() }).strict().optional(),
  groups: z
    .array(z.union([groupIdSchema, flatGroupV1]))
    .max(GROUPS_PER_ENTITY)
    .meta({ uniqueItems: true })
    .describe(
      `The groups the provider reports the driver in (credential visible), at most ${GROUPS_PER_ENTITY} (more: groupMembership.status \`partial\`). Group ids, or with \`expand=groups\` the stored Groups (an unstored group stays an id). Absent when membership is unknown (see groupMembership).`,
    )
    .optional(),
  groupMembership: driverGroupMembershipV1,
  metadata: z.object({ ...addedModifiedFields('driver'), visibility: z.literal('visible') }).strict(),
  availability: driverAvailabilityV1,
}).meta({
  id: 'Driver',
  description: 'A driver of the connection from the last stored driver directory (spec 2.5): the TripDriver identity fields with the Driver constraints and relations.',
});

export const driverExpandV1 = z.object({ groups: z.boolean() }).strict();

export const listDriversRequestV1 = z
  .object({
    ...readPageRequestFields,
    expand: driverExpandV1,
    /** Keyset position: the last driver id served (ascending id). */
    after: driverIdSchema.optional(),
  })
  .strict();

/** A framed reply (framed-reply.ts): the walk and dataset in `meta`, the Driver array as JSON text in `body`. */
export const listDriversReplyV1 = framedReply(
  z
    .object({
      ...readPageReplyFields,
      /** The last driver served; present exactly when hasMore. */
      next: driverIdSchema.optional(),
    })
    .strict(),
);

/** The driver directory is the last complete collection pass (decision 0014): its times and statuses say so. */
const PASS_TIMES = {
  fetchedAt:
    'When the provider data behind this answer was fetched: the fetch time of the newest page of the complete pass served (for a driver that pass no longer lists, the fetch time of its last known record); null before the first complete pass.',
  capturedAt: 'When the final page of the complete pass served was fetched; null before the first complete pass.',
} as const;
const DEGRADED = '`degraded`: the newest collection attempt of the connection failed (see errorCode); stored data is still served.';

/** The dataset fields DriverDirectory and DriverResult share. */
const driverFrame = {
  retrieval: storedRetrievalV1(),
  fetchedAt: wireDateTimeV1.nullable().describe(PASS_TIMES.fetchedAt),
  capturedAt: wireDateTimeV1.nullable().describe(PASS_TIMES.capturedAt),
  errorCode: z
    .enum(DRIVER_DIRECTORY_REASON_CODES)
    .nullable()
    .describe(`${DATASET_TIMES.errorCode} Only the DriverDirectory codes; a failure reported with another code leaves it null.`),
};

/** DriverDirectory (spec 2.5): the gateway's page of the last complete driver directory. */
export const driverDirectoryV1 = z
  .object({
    ...driverFrame,
    status: z
      .enum(DRIVER_DIRECTORY_STATUSES)
      .describe(
        `\`pending\`: no drivers pass has completed yet (no results). \`available\`: the last complete pass is served. \`stale\`: its newest page was fetched more than 15 minutes (3 scheduler windows) ago. ${DEGRADED}`,
      ),
    results: z.array(driverV1).max(PAGE_RANGES.drivers.max),
    next: nextCursorV1('page of drivers').optional(),
  })
  .strict()
  .meta({
    id: 'DriverDirectory',
    description:
      'A page of the last complete driver directory of the connection (the drivers of the last collection pass that reached its final page; no provider contact), ascending id, at most 100 drivers.',
  });

/** DriverResult (spec 2.5): one stored driver with the dataset fields. */
export const driverResultV1 = z
  .object({
    ...driverFrame,
    status: z
      .enum(DRIVER_RESULT_STATUSES)
      .describe(
        `\`available\` and \`stale\` as for the directory; \`stale\` also for a driver an earlier complete pass listed but the last one does not (its last known record is served, fetchedAt before capturedAt). ${DEGRADED}`,
      ),
    driver: driverV1,
  })
  .strict()
  .meta({
    id: 'DriverResult',
    description: 'One stored driver (spec 2.5): of the last complete driver directory, or its last known record when that directory no longer lists it.',
  });

export const getDriverRequestV1 = z.object({ connectionId: z.uuid(), driverId: driverIdSchema, expand: driverExpandV1 }).strict();
/** A framed reply: the dataset in `meta`, the Driver as JSON text in `body`. */
export const getDriverReplyV1 = framedReply(z.object({ dataset: datasetStatusV1 }).strict());


export type DriverV1 = z.output<typeof driverV1>;
export type DriverDirectoryV1 = z.output<typeof driverDirectoryV1>;
export type DriverResultV1 = z.output<typeof driverResultV1>;
export type DriverGroupMembershipV1 = z.output<typeof driverGroupMembershipV1>;
export type DriverAvailabilityV1 = z.output<typeof driverAvailabilityV1>;
export type DriverExpandV1 = z.output<typeof driverExpandV1>;
export type ListDriversRequestV1 = z.output<typeof listDriversRequestV1>;
export type ListDriversReplyV1 = z.output<typeof listDriversReplyV1>;
export type GetDriverRequestV1 = z.output<typeof getDriverRequestV1>;
export type GetDriverReplyV1 = z.output<typeof getDriverReplyV1>;
