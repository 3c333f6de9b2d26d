/**
 * Stored group row → the public Group (spec 2.2). name and description appear only when their
 * stored Field is `available` (never an empty stand-in). metadata.visibility is always `visible`;
 * metadata.parentResolution: `root_or_unreported` when the provider reported no parent, `resolved`
 * when the parent is stored within the read's scope (the whole directory, or the approved groups of
 * the inventory), `unresolved` otherwise. `parent` is the parent's id (omitted when the parent lies
 * outside the inventory's approved groups), or with `expand=parent` the stored parent as a Group
 * whose own parent stays an id. addedAt = fetch time of the first batch that carried the group;
 * modifiedAt = fetch time of the last batch that changed it.
 */
import { isProvider, type Field } from '@switchyard/domain';
import type { FlatGroupV1, GroupV1, ParentResolution } from '@switchyard/messaging';
import type { GroupReadRow } from '../db/repositories/groups-read.repository.js';
import { withoutUndefined } from './vehicle.mapper.js';

const text = (f: Field<string> | undefined): string | undefined => (f?.status === 'available' && typeof f.value === 'string' ? f.value : undefined);

const resolution = (row: GroupReadRow): ParentResolution => (!row.has_parent ? 'root_or_unreported' : row.parent_stored ? 'resolved' : 'unresolved');

/** The group with its parent as an id only; undefined for a row whose provider is unknown. */
export function flatGroupOf(row: GroupReadRow): FlatGroupV1 | undefined {
  if (!isProvider(row.provider)) return undefined;
  return withoutUndefined<FlatGroupV1>({
    id: row.id,
    sourceId: row.source_id,
    provider: row.provider,
    name: text(row.name_field),
    description: text(row.description_field),
    parent: row.parent_id ?? undefined,
    metadata: { addedAt: row.added_at, modifiedAt: row.modified_at, visibility: 'visible', parentResolution: resolution(row) },
  });
}

export function groupOf(row: GroupReadRow): GroupV1 | undefined {
  const group = flatGroupOf(row);
  if (!group) return undefined;
  const parent = row.parent ? flatGroupOf(row.parent) : undefined;
  return parent ? { ...group, parent } : group;
}
