/**
 * Ids in requests (paths and id-list parameters), read one way everywhere: the prefix exactly as
 * spec 2.1 writes it (`vcl_`, `drv_`, `trp_`, `group_`, `sync_`), the 26-character Crockford base32
 * body in either case — Crockford base32 decodes case-insensitively, so `vcl_0abc…` names the same
 * vehicle as `vcl_0ABC…` — and handed on in the canonical uppercase form the gateway answers with.
 * The documented parameter patterns stay the canonical form. No other Crockford aliasing (I, L, O)
 * is applied: those letters are refused, as the spec's alphabet excludes them.
 * Controllers take a path id with `@EntityId(kind, name)`: it hands the handler the canonical id or
 * refuses the request. It is `@Param(name)` with a pipe, so the OpenAPI document reads the path
 * parameter where it always did, and it runs with the other parameters' pipes: after the guard and
 * the undeclared-query check, before the handler (a body check or anything else the handler reads).
 */
import { Param, type PipeTransform } from '@nestjs/common';
import { ENTITY_PREFIXES, isEntityId, isSyncId, isUuid, type EntityKind } from '@switchyard/domain';
import { ApiError, invalid } from './api-error.js';

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

/** The kinds of id a path names: entity and sync ids, and connect-session uuids. */
export type PathIdKind = IdKind | 'session';

/**
 * A path id in canonical form, else the route's answer to a malformed one: 400 `invalid_path`
 * naming the parameter for an entity id; for a sync id or a session uuid, which name nothing of
 * anyone's when malformed, the same 404 `not_found` as an unknown one.
 */
function pathId(kind: PathIdKind, name: string, raw: string): string {
  if (kind === 'session') {
    if (!isUuid(raw)) throw new ApiError('not_found');
    return raw;
  }
  const id = canonicalId(kind, raw);
  if (id !== undefined) return id;
  throw kind === 'sync' ? new ApiError('not_found') : invalid('invalid_path', 'path', name, 'malformed');
}

class PathIdPipe implements PipeTransform<string, string> {
  constructor(
    private readonly kind: PathIdKind,
    private readonly name: string,
  ) {}

  transform(raw: string): string {
    return pathId(this.kind, this.name, raw);
  }
}

/** The path parameter `name` as a canonical id of `kind` (pathId's rules). */
export const EntityId = (kind: PathIdKind, name: string): ParameterDecorator => Param(name, new PathIdPipe(kind, name));
