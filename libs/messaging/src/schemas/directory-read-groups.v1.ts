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
 * - the inventory is at most 100 approved groups, so it is one page (no keyset).
 * Errors: `not_found` (no such group on this connection), `service_unavailable` (migrations pending).
 */
import { ID_PATTERNS, PROVIDERS } from '@switchyard/domain';
import { z } from 'zod';
import type { RpcDefinition } from '../port.js';
import { datasetStatusV1, isoDateTimeV1, readPageReplyFields, readPageRequestFields } from './directory-read.v1.js';

export const PARENT_RESOLUTIONS = ['resolved', 'unresolved', 'root_or_unreported'] as const;
export type ParentResolution = (typeof PARENT_RESOLUTIONS)[number];

/** Which group directory limit a stored directory exceeds. */
export const GROUP_DIRECTORY_LIMITS = ['rows', 'references', 'projected_bytes'] as const;

const groupIdV1 = z.string().regex(new RegExp(ID_PATTERNS.group));

const groupFields = {
  id: groupIdV1,
  sourceId: z.string().min(1),
  provider: z.enum(PROVIDERS),
  name: z.string().optional(),
  description: z.string().optional(),
  metadata: z
    .object({ addedAt: isoDateTimeV1, modifiedAt: isoDateTimeV1, visibility: z.literal('visible'), parentResolution: z.enum(PARENT_RESOLUTIONS).optional() })
    .strict(),
};

/** A Group whose parent is an id only: the expanded form inside another resource. */
export const flatGroupV1 = z.object({ ...groupFields, parent: groupIdV1.optional() }).strict();
/** The public Group (spec 2.2). */
export const groupV1 = z.object({ ...groupFields, parent: z.union([groupIdV1, flatGroupV1]).optional() }).strict();

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
    after: groupIdV1.optional(),
  })
  .strict();

export const listGroupDirectoryReplyV1 = z
  .object({
    ...readPageReplyFields,
    groups: z.array(groupV1).max(100),
    /** Set (and `groups` empty) when the stored directory exceeds a limit: it is not served. */
    limitExceeded: z.enum(GROUP_DIRECTORY_LIMITS).optional(),
    /** The last group served; present exactly when hasMore. */
    next: groupIdV1.optional(),
  })
  .strict();

export const groupInventoryRequestV1 = z.object({ connectionId: z.uuid(), expand: groupExpandV1 }).strict();
export const groupInventoryReplyV1 = z
  .object({
    /** The connection's `groupInventory` opt-in (false also while its configuration has not reached the directory). */
    enabled: z.boolean(),
    dataset: datasetStatusV1,
    groups: z.array(groupV1).max(100),
  })
  .strict();

export const getGroupRequestV1 = z.object({ connectionId: z.uuid(), groupId: groupIdV1, expand: groupExpandV1 }).strict();
export const getGroupReplyV1 = z.object({ dataset: datasetStatusV1, group: groupV1 }).strict();

export const DIRECTORY_GROUPS_RPCS = {
  directory: { subject: 'directory.read.groups.directory', request: listGroupDirectoryRequestV1, response: listGroupDirectoryReplyV1 },
  inventory: { subject: 'directory.read.groups.inventory', request: groupInventoryRequestV1, response: groupInventoryReplyV1 },
  get: { subject: 'directory.read.groups.get', request: getGroupRequestV1, response: getGroupReplyV1 },
} as const satisfies Record<string, RpcDefinition>;

export type GroupV1 = z.output<typeof groupV1>;
export type FlatGroupV1 = z.output<typeof flatGroupV1>;
export type GroupExpandV1 = z.output<typeof groupExpandV1>;
export type GroupDirectoryLimitsV1 = z.output<typeof groupDirectoryLimitsV1>;
export type ListGroupDirectoryRequestV1 = z.output<typeof listGroupDirectoryRequestV1>;
export type ListGroupDirectoryReplyV1 = z.output<typeof listGroupDirectoryReplyV1>;
export type GroupInventoryRequestV1 = z.output<typeof groupInventoryRequestV1>;
export type GroupInventoryReplyV1 = z.output<typeof groupInventoryReplyV1>;
export type GetGroupRequestV1 = z.output<typeof getGroupRequestV1>;
export type GetGroupReplyV1 = z.output<typeof getGroupReplyV1>;
