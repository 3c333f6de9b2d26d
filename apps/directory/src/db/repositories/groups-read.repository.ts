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
import { GROUPS_PER_ENTITY } from '@switchyard/contracts';
import { isoSql, readQuery, tableNamer, type Em } from '@switchyard/persistence';
import { readFrame, type FramedPage } from '@switchyard/service-kit';
import { idPageTail, type IdPageQuery } from './read-horizon.js';
import { fieldTextSql, knownProviderSql, withoutNullsSql } from './read-sql.js';

export interface GroupDirectoryTotals {
  rows: number;
  references: number;
  projected_bytes: number;
}

/** Serialized `"metadata":{…}` of a served group with the longest parentResolution, plus separators. */
const METADATA_BYTES = 130;

/** The read's scope: the approved source ids of the inventory (one jsonb parameter), or NULL for the whole directory. */
const SCOPE_CTE = 'scope as (select ?::jsonb as ids)';
const inScopeSql = (sourceId: string) => `((select ids from scope) is null or ${sourceId} in (select jsonb_array_elements_text(ids) from scope))`;

/**
 * The public Group of the stored group `x` with its parent as an id only (the ExpandedGroup every
 * expansion uses): name and description only when their stored Field is `available`;
 * metadata.parentResolution `root_or_unreported` without a reported parent, `resolved` when the
 * parent is stored within the read's scope, `unresolved` otherwise; the parent's id only when it
 * lies within the scope. `scoped`: the statement has the `scope` CTE (else the whole directory).
 */
export function flatGroupSql(t: (table: string) => string, x: string, scoped = false): string {
  const inScope = (sourceId: string) => (scoped ? inScopeSql(sourceId) : 'true');
  return `json_build_object('id', ${x}.id, 'sourceId', ${x}.source_id, 'provider', ${x}.provider,
      'name', ${fieldTextSql(`${x}.name_field`)}, 'description', ${fieldTextSql(`${x}.description_field`)},
      'parent', case when ${x}.parent_id is not null and ${inScope(`${x}.parent_source_id`)} then ${x}.parent_id end,
      'metadata', json_build_object('addedAt', ${isoSql(`${x}.first_seen_at`)}, 'modifiedAt', ${isoSql(`${x}.modified_at`)}, 'visibility', 'visible',
        'parentResolution', case when ${x}.parent_id is null then 'root_or_unreported'
          when exists (select 1 from ${t('group')} pp where pp.connection_id = ${x}.connection_id and pp.id = ${x}.parent_id and ${inScope('pp.source_id')}) then 'resolved'
          else 'unresolved' end))`;
}

/**
 * `left join lateral (…) <alias> on <on>` of the groups a driver or vehicle belongs to: `members`
 * selects `id` (group_ ids, possibly repeated) and `n` (reported order); the join gives `ids` (jsonb:
 * the ids unique in reported order, at most GROUPS_PER_ENTITY, each an ExpandedGroup when `expand`
 * — a boolean SQL expression — and the group is stored) and `cut` (more were reported). NULL when
 * `on` is false (the memberships are not known).
 */
export function groupListJoinSql(t: (table: string) => string, connection: string, members: string, alias: string, expand: string, on: string): string {
  const expanded = `case when ${expand} then (select ${flatGroupSql(t, 'gg')}::jsonb from ${t('group')} gg where gg.connection_id = ${connection} and gg.id = u.id and ${knownProviderSql('gg.provider')}) end`;
  return `left join lateral (
      select coalesce(jsonb_agg(coalesce(${expanded}, to_jsonb(u.id)) order by u.n) filter (where u.rank <= ${GROUPS_PER_ENTITY}), '[]'::jsonb) as ids, count(*) > ${GROUPS_PER_ENTITY} as cut
        from (select m.id, min(m.n) as n, row_number() over (order by min(m.n)) as rank from (${members}) m group by m.id) u
    ) ${alias} on ${on}`;
}

export class GroupsReadRepository {
  /**
   * `with scope …` and the select of each shown group `g` as its public Group (`body`, with
   * `expand=parent` the stored parent of a known provider as an ExpandedGroup) and its keyset
   * position (`position`: the id). A group of a provider the public shape does not know is no Group
   * and is left out. Params: scope, expand.
   */
  private select(em: Em, scope: readonly string[] | null, expandParent: boolean): { sql: string; params: unknown[] } {
    const t = tableNamer(em);
    const flat = flatGroupSql(t, 'g', true);
    return {
      sql: `with ${SCOPE_CTE}
       select ${withoutNullsSql(`case when ?::boolean and p.id is not null then (${flat}::jsonb || jsonb_build_object('parent', ${flatGroupSql(t, 'p', true)}))::json else ${flat} end`)} as body,
              to_json(g.id) as position
         from ${t('group')} g
         left join ${t('group')} p on p.connection_id = g.connection_id and p.id = g.parent_id and ${knownProviderSql('p.provider')} and ${inScopeSql('p.source_id')}`,
      params: [scope === null ? null : JSON.stringify(scope), expandParent],
    };
  }

  /** One frame page of the whole directory, ascending id, inside the horizon. */
  page(em: Em, q: Omit<IdPageQuery, 'limit'> & { expandParent: boolean }, page: { limit: number; maxBytes: number }): Promise<FramedPage<string>> {
    const { sql, params } = this.select(em, null, q.expandParent);
    const tail = idPageTail('g', { ...q, filter: { sql: knownProviderSql('g.provider'), params: [] } });
    return readFrame(em, { sql: `${sql} ${tail.sql}`, params: [...params, ...tail.params] }, page);
  }

  /** The stored groups among `sourceIds` (the approved inventory, at most 100), resolved within them, as one JSON array text. */
  async inventory(em: Em, connectionId: string, sourceIds: readonly string[], expandParent: boolean): Promise<string> {
    const { sql, params } = this.select(em, sourceIds, expandParent);
    const [row] = await readQuery<{ items: string }>(
      em,
      `select coalesce(json_agg(body order by position #>> '{}'), '[]')::text as items
         from (${sql} where g.connection_id = ?::uuid and ${knownProviderSql('g.provider')} and g.source_id in (select jsonb_array_elements_text(?::jsonb))) q`,
      [...params, connectionId, JSON.stringify(sourceIds)],
    );
    return row?.items ?? '[]';
  }

  /** One stored group of the connection by id (the directory's scope) as its public Group text; undefined when none is shown. */
  async byId(em: Em, connectionId: string, id: string, expandParent: boolean): Promise<string | undefined> {
    const { sql, params } = this.select(em, null, expandParent);
    const [row] = await readQuery<{ body: string }>(em, `select body::text as body from (${sql} where g.connection_id = ?::uuid and g.id = ? and ${knownProviderSql('g.provider')}) q`, [
      ...params,
      connectionId,
      id,
    ]);
    return row?.body;
  }

  async directoryTotals(em: Em, connectionId: string): Promise<GroupDirectoryTotals> {
    const t = tableNamer(em);
    const [row] = await readQuery<GroupDirectoryTotals>(
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
