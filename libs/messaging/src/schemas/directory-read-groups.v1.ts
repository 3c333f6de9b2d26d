/**
 * `directory.read.groups.directory|inventory|get` v1: gateway → directory request/reply behind
 * GET /v1/connections/{id}/groups (`view=directory`: GroupDirectoryResponse, `view=inventory`:
 * GroupInventoryResponse) and …/groups/{groupId} (GroupDirectoryResult), spec 2.2, 4.2, 8.
 * The directory answers from its own store (no provider contact) with public Group objects.
 *
 * Decisions kept here:
 * - `groupV1` is exactly the public Group (no extra properties); `parent` is a group_ id or, with
 *   `expand=parent`, the parent as a Group whose own `parent` stays an id (`flatGroupV1`: one level,
 *   so an expansion never walks a cycle). Drivers embed `flatGroupV1` for `expand=groups`;
 * - the group directory limits (rows, references, projected bytes) travel in the request, so the
 *   gateway owns the contract numbers (spec 8) and a test can lower them; the directory compares
 *   the connection's stored directory with them and answers `limitExceeded` instead of a page;
 * - the inventory is at most 100 approved groups, so it is one page (no keyset);
 * - the public answers the gateway builds from these replies (GroupDirectoryResponse,
 *   GroupInventoryResponse, GroupDirectoryResult) are declared here too; every one is closed, which
 *   also makes the list route's `oneOf` decidable: only the directory answer has `sourceScope`.
 * Errors: `not_found` (no such group on this connection), `service_unavailable` (migrations pending).
 */
import { GROUP_DIRECTORY, GROUP_INVENTORY_MAX_IDS, groupIdSchema } from '@switchyard/contracts';
import { PROVIDERS } from '@switchyard/domain';
import { z } from 'zod';
import { framedReply } from '../framed-reply.js';
import {
  addedModifiedFields,
  DATASET_STATUSES,
  DATASET_TIMES,
  datasetErrorCodeV1,
  datasetStatusV1,
  datasetTimeV1,
  nextCursorV1,
  readPageReplyFields,
  readPageRequestFields,
  STATUS_RULES,
  storedRetrievalV1,
} from './directory-read.v1.js';

export const PARENT_RESOLUTIONS = ['resolved', 'unresolved', 'root_or_unreported'] as const;
export type ParentResolution = (typeof PARENT_RESOLUTIONS)[number];

/** Which group directory limit a stored directory exceeds. */
export const GROUP_DIRECTORY_LIMITS = ['rows', 'references', 'projected_bytes'] as const;


const groupFields = {
  id: groupIdSchema,
  sourceId: z.string().min(1).describe("The provider's group id."),
  provider: z.enum(PROVIDERS),
  name: z.string().describe('Absent when the provider did not report it.').optional(),
  description: z.string().describe('Absent when the provider did not report it.').optional(),
  metadata: z
    .object({
      ...addedModifiedFields('group'),
      visibility: z.literal('visible'),
      parentResolution: z
        .enum(PARENT_RESOLUTIONS)
        .describe('`root_or_unreported`: no parent reported. `resolved`: the parent is stored (in the inventory: among the approved groups). `unresolved`: a parent was reported but is not.')
        .optional(),
    })
    .strict(),
};

/** A Group whose parent is an id only: the expanded form inside another resource. */
export const flatGroupV1 = z
  .object({ ...groupFields, parent: groupIdSchema.describe('The parent group id. Absent for a root or unreported parent.').optional() })
  .strict()
  .meta({ id: 'ExpandedGroup', description: 'A stored group inside another resource (spec 2.2): a Group whose own parent stays an id.' });
/** The public Group (spec 2.2). */
export const groupV1 = z
  .object({
    ...groupFields,
    parent: z
      .union([groupIdSchema, flatGroupV1])
      .describe(
        'The parent group id, or with `expand=parent` the stored parent (whose own parent is an id). Absent for a root or unreported parent, and in the inventory for a parent outside the approved groups.',
      )
      .optional(),
  })
  .strict()
  .meta({ id: 'Group', description: 'A provider group of the connection (spec 2.2).' });

export const groupExpandV1 = z.object({ parent: z.boolean() }).strict();

export const groupDirectoryLimitsV1 = z
  .object({ maxRows: z.number().int().min(1), maxReferences: z.number().int().min(1), projectedByteLimit: z.number().int().min(1) })
  .strict();

export const listGroupDirectoryRequestV1 = z
  .object({
    ...readPageRequestFields,
    expand: groupExpandV1,
    limits: groupDirectoryLimitsV1,
    /** Keyset position: the last group id served (ascending id). */
    after: groupIdSchema.optional(),
  })
  .strict();

/** A framed reply (framed-reply.ts): the walk and dataset in `meta`, the Group array as JSON text in `body` (`[]` when a limit is exceeded). */
export const listGroupDirectoryReplyV1 = framedReply(
  z
    .object({
      ...readPageReplyFields,
      /** Set (and the body `[]`) when the stored directory exceeds a limit: it is not served. */
      limitExceeded: z.enum(GROUP_DIRECTORY_LIMITS).optional(),
      /** The last group served; present exactly when hasMore. */
      next: groupIdSchema.optional(),
    })
    .strict(),
);

export const groupInventoryRequestV1 = z.object({ connectionId: z.uuid(), expand: groupExpandV1 }).strict();
/** A framed reply: the opt-in and dataset in `meta`, the Group array as JSON text in `body`. */
export const groupInventoryReplyV1 = framedReply(
  z
    .object({
      /** The connection's `groupInventory` opt-in (false also while its configuration has not reached the directory). */
      enabled: z.boolean(),
      dataset: datasetStatusV1,
    })
    .strict(),
);

export const getGroupRequestV1 = z.object({ connectionId: z.uuid(), groupId: groupIdSchema, expand: groupExpandV1 }).strict();
/** A framed reply: the dataset in `meta`, the Group as JSON text in `body`. */
export const getGroupReplyV1 = framedReply(z.object({ dataset: datasetStatusV1 }).strict());

/** Group page size: at most 100 groups per directory page (our choice within the 4 MiB response limit). */
export const GROUP_PAGE = { min: 1, max: 100, default: 100 } as const;
export const GROUP_LIMIT_CODE_TEXT = `\`group_directory_limit_exceeded\` (status \`degraded\`, no results, no \`next\`) when the stored directory exceeds ${GROUP_DIRECTORY.maxRows.toLocaleString('en-US')} rows, ${GROUP_DIRECTORY.maxReferences.toLocaleString('en-US')} references (parent links plus the driver and vehicle memberships naming groups) or ${GROUP_DIRECTORY.projectedByteLimit.toLocaleString('en-US')} projected bytes (the directory serialized as served)`;
/** A single group is served only from a stored directory, so its answer is never `pending`. */
export const GROUP_RESULT_STATUSES = ['available', 'stale', 'degraded'] as const;

/** The constant fields and dataset times GroupDirectoryResponse and GroupDirectoryResult share. */
const directoryFrame = {
  retrieval: storedRetrievalV1(),
  sourceScope: z.literal('credential_visible_directory').describe('Every group the provider credential can see.'),
  consistency: z.literal('not_transactional').describe('Pages of one walk keep to the groups stored when its first page was read; the provider pages were not read in one transaction.'),
  deletionEvidence: z.literal('none').describe('A group the provider deleted is not reported as deleted.'),
  fetchedAt: datasetTimeV1('fetchedAt'),
  capturedAt: datasetTimeV1('capturedAt'),
};

export const groupDirectoryResponseV1 = z
  .object({
    ...directoryFrame,
    errorCode: datasetStatusV1.shape.errorCode.describe(`${DATASET_TIMES.errorCode} Also ${GROUP_LIMIT_CODE_TEXT}.`),
    status: z.enum(DATASET_STATUSES).describe(STATUS_RULES),
    results: z.array(groupV1).max(GROUP_PAGE.max),
    next: nextCursorV1('page of the group directory').optional(),
  })
  .strict()
  .meta({ id: 'GroupDirectoryResponse', description: 'A page of the credential-visible group directory (`view=directory`), ascending id, at most 4,194,304 bytes per response.' });

export const groupDirectoryResultV1 = z
  .object({
    ...directoryFrame,
    errorCode: datasetErrorCodeV1(),
    status: z.enum(GROUP_RESULT_STATUSES).describe(STATUS_RULES),
    data: groupV1,
  })
  .strict()
  .meta({ id: 'GroupDirectoryResult', description: 'One stored group of the connection (spec 2.2).' });

export const groupInventoryResponseV1 = z
  .object({
    status: z.enum(['disabled', ...DATASET_STATUSES]).describe(`\`disabled\`: the connection's groupInventory opt-in is off (no results). ${STATUS_RULES}`),
    results: z.array(groupV1).max(GROUP_INVENTORY_MAX_IDS),
    next: nextCursorV1('page of groups (never present: the inventory is one page)').optional(),
    fetchedAt: datasetTimeV1('fetchedAt'),
    errorCode: datasetErrorCodeV1().optional(),
    retrieval: storedRetrievalV1(),
  })
  .strict()
  .meta({
    id: 'GroupInventoryResponse',
    description: `The approved groups (\`view=inventory\`, opt-in \`groupInventory\`): the stored groups among the connection's at most ${GROUP_INVENTORY_MAX_IDS} approved group ids, ascending id, one page; parents resolved among the approved groups only.`,
  });

export type GroupV1 = z.output<typeof groupV1>;
export type GroupDirectoryResponseV1 = z.output<typeof groupDirectoryResponseV1>;
export type GroupDirectoryResultV1 = z.output<typeof groupDirectoryResultV1>;
export type GroupInventoryResponseV1 = z.output<typeof groupInventoryResponseV1>;
export type FlatGroupV1 = z.output<typeof flatGroupV1>;
export type GroupExpandV1 = z.output<typeof groupExpandV1>;
export type GroupDirectoryLimitsV1 = z.output<typeof groupDirectoryLimitsV1>;
export type ListGroupDirectoryRequestV1 = z.output<typeof listGroupDirectoryRequestV1>;
export type ListGroupDirectoryReplyV1 = z.output<typeof listGroupDirectoryReplyV1>;
export type GroupInventoryRequestV1 = z.output<typeof groupInventoryRequestV1>;
export type GroupInventoryReplyV1 = z.output<typeof groupInventoryReplyV1>;
export type GetGroupRequestV1 = z.output<typeof getGroupRequestV1>;
export type GetGroupReplyV1 = z.output<typeof getGroupReplyV1>;
