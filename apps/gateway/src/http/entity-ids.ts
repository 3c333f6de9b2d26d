/**
 * Ids in requests (paths and id-list parameters), read one way everywhere: the prefix exactly as
 * spec 2.1 writes it (`vcl_`, `drv_`, `trp_`, `group_`, `sync_`), the 26-character Crockford base32
 * body in either case — Crockford base32 decodes case-insensitively, so `vcl_0abc…` names the same
 * vehicle as `vcl_0ABC…` — and handed on in the canonical uppercase form the gateway answers with.
 * The documented parameter patterns stay the canonical form. No other Crockford aliasing (I, L, O)
 * is applied: those letters are refused, as the spec's alphabet excludes them.
 */
import { ENTITY_PREFIXES, isEntityId, isSyncId, type EntityKind } from '@switchyard/domain';
import { invalid } from './api-error.js';

export type IdKind = EntityKind | 'sync';

const prefixOf = (kind: IdKind): string => (kind === 'sync' ? 'sync_' : ENTITY_PREFIXES[kind]);

/** The canonical form of `raw` as an id of `kind`, or undefined when it is none. */
export function canonicalId(kind: IdKind, raw: string): string | undefined {
  const prefix = prefixOf(kind);
  // 64 is far above every id (group_ + 26); the bound keeps a 16 KiB path from being upper-cased.
  if (!raw.startsWith(prefix) || raw.length > 64) return undefined;
  const id = prefix + raw.slice(prefix.length).toUpperCase();
  return (kind === 'sync' ? isSyncId(id) : isEntityId(kind, id)) ? id : undefined;
}

/** A path id of an entity kind: its canonical form, else 400 `invalid_path` naming the parameter. */
export function pathId(kind: EntityKind, name: string, raw: string): string {
  const id = canonicalId(kind, raw);
  if (id === undefined) throw invalid('invalid_path', 'path', name, 'malformed');
  return id;
}
