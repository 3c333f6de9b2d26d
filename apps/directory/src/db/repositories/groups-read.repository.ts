/**
 * The SQL of the stored group reads. The directory view keysets on `group_connection_idx`
 * (connection_id, id), ascending, never offset, inside the walk's horizon snapshot (migration 0003
 * `created_xid`, the same rule as trips). `scope` narrows a read to the approved source ids of the
 * group inventory: rows AND parent resolution keep to it (parentResolution = approved_groups_only),
 * and a parent outside it is reported without its id. Source-id lists are arbitrary provider text,
 * so they travel as one jsonb parameter, never spliced into SQL.
 * `directoryTotals` measures the stored directory against the group directory limits (spec 8):
 * rows, references (parent links plus the driver and vehicle memberships that point at groups) and
 * projected bytes (each group serialized as served without expansion, metadata included).
 */
import type { Field } from '@switchyard/domain';
import { isoSql, query, tableNamer, type Em } from '@switchyard/persistence';
import { idPageTail, type IdPageQuery } from './read-horizon.js';

export interface GroupReadRow {
  id: string;
  source_id: string;
  provider: string;
  name_field: Field<string>;
  description_field: Field<string>;
  /** The provider reported a parent. */
  has_parent: boolean;
  /** The parent's group id; null when none was reported or it lies outside the read's scope. */
  parent_id: string | null;
  /** The parent is stored (and in scope): parentResolution `resolved`. */
  parent_stored: boolean;
  added_at: string;
  modified_at: string;
  /** The stored parent, only when expanded. */
  parent: GroupReadRow | null;
}

export interface GroupDirectoryTotals {
  rows: number;
  references: number;
  projected_bytes: number;
}

/** Serialized `"metadata":{…}` of a served group with the longest parentResolution, plus separators. */
const METADATA_BYTES = 130;

export class GroupsReadRepository {
  /**
   * The select of one group `g` with its parent `p`, both within `scope` (null: the whole directory).
   * Params: scope (twice), expand.
   */
  private select(em: Em, scope: readonly string[] | null, expandParent: boolean): { sql: string; params: unknown[] } {
    const t = tableNamer(em);
    const inScope = (alias: string) => `(?::jsonb is null or ${alias}.source_id in (select jsonb_array_elements_text(?::jsonb)))`;
    const scopeParam = scope === null ? null : JSON.stringify(scope);
    const parentJson = `json_build_object('id', p.id, 'source_id', p.source_id, 'provider', p.provider, 'name_field', p.name_field, 'description_field', p.description_field,
        'has_parent', p.parent_id is not null,
        'parent_id', case when p.parent_id is not null and (?::jsonb is null or p.parent_source_id in (select jsonb_array_elements_text(?::jsonb))) then p.parent_id end,
        'parent_stored', exists (select 1 from ${t('group')} pp where pp.connection_id = p.connection_id and pp.id = p.parent_id and ${inScope('pp')}),
        'added_at', ${isoSql('p.first_seen_at')}, 'modified_at', ${isoSql('p.modified_at')}, 'parent', null)`;
    return {
      sql: `select g.id, g.source_id, g.provider, g.name_field, g.description_field, g.parent_id is not null as has_parent,
              case when g.parent_id is not null and (?::jsonb is null or g.parent_source_id in (select jsonb_array_elements_text(?::jsonb))) then g.parent_id end as parent_id,
              p.id is not null as parent_stored,
              ${isoSql('g.first_seen_at')} as added_at, ${isoSql('g.modified_at')} as modified_at,
              case when ?::boolean and p.id is not null then ${parentJson} end as parent
         from ${t('group')} g
         left join ${t('group')} p on p.connection_id = g.connection_id and p.id = g.parent_id and ${inScope('p')}`,
      params: [scopeParam, scopeParam, expandParent, scopeParam, scopeParam, scopeParam, scopeParam, scopeParam, scopeParam],
    };
  }

  /** One keyset page of the whole directory, ascending id, inside the horizon. */
  async page(em: Em, q: IdPageQuery & { expandParent: boolean }): Promise<GroupReadRow[]> {
    const { sql, params } = this.select(em, null, q.expandParent);
    const tail = idPageTail('g', q);
    return query<GroupReadRow>(em, `${sql} ${tail.sql}`, [...params, ...tail.params]);
  }

  /** The stored groups among `sourceIds` (the approved inventory), resolved within them. */
  async inventory(em: Em, connectionId: string, sourceIds: readonly string[], expandParent: boolean): Promise<GroupReadRow[]> {
    const { sql, params } = this.select(em, sourceIds, expandParent);
    return query<GroupReadRow>(em, `${sql} where g.connection_id = ?::uuid and ${'g.source_id in (select jsonb_array_elements_text(?::jsonb))'} order by g.id`, [
      ...params,
      connectionId,
      JSON.stringify(sourceIds),
    ]);
  }

  /** Stored groups of the connection by group id (the directory's scope), unexpanded. */
  async byIds(em: Em, connectionId: string, ids: readonly string[], expandParent = false): Promise<GroupReadRow[]> {
    if (ids.length === 0) return [];
    const { sql, params } = this.select(em, null, expandParent);
    return query<GroupReadRow>(em, `${sql} where g.connection_id = ?::uuid and g.id in (select jsonb_array_elements_text(?::jsonb))`, [...params, connectionId, JSON.stringify(ids)]);
  }

  async directoryTotals(em: Em, connectionId: string): Promise<GroupDirectoryTotals> {
    const t = tableNamer(em);
    const [row] = await query<GroupDirectoryTotals>(
      em,
      `select g.n as "rows", g.parents + d.refs + v.refs as "references", g.bytes as projected_bytes
         from (select count(*)::int as n, count(parent_id)::int as parents,
                      coalesce(sum(octet_length(json_build_object('id', id, 'sourceId', source_id, 'provider', provider, 'name', name_field->'value',
                        'description', description_field->'value', 'parent', parent_id)::text) + ${METADATA_BYTES}), 0)::float8 as bytes
                 from ${t('group')} where connection_id = ?::uuid) g,
              (select coalesce(sum(cardinality(group_ids)), 0)::int as refs from ${t('driver')} where connection_id = ?::uuid) d,
              (select coalesce(sum(jsonb_array_length(metadata->'groups'->'value')), 0)::int as refs from ${t('vehicle')}
                where connection_id = ?::uuid and metadata->'groups'->>'status' = 'available' and jsonb_typeof(metadata->'groups'->'value') = 'array') v`,
      [connectionId, connectionId, connectionId],
    );
    if (!row) throw new Error('group directory totals returned no row');
    return row;
  }
}
