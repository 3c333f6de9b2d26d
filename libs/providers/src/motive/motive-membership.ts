/**
 * Driver → group memberships for DriverRecord.groupIds. Motive exposes membership only per group
 * (`GET /v1/groups/{id}/users`, motive.md §4), so the index costs one listing of groups plus one
 * listing per group; the adapter builds it once per driver listing. Invariant: an index is either
 * complete or absent — a missing permission on groups, or a malformed group or member record, makes
 * every driver's groupIds `missing` (with the reason), never a list that would read as "in no (other) group".
 */
import { ProviderError } from '../errors.js';
import { MotiveClient, nextPageNo } from './motive.client.js';
import type { MembershipLookup } from './motive.mapper.js';
import { groupsEnvelope, groupUsersEnvelope, type ListPage } from './motive.schemas.js';

/** Every id of a listing; `incomplete` when an entry was malformed (skipped), so the list cannot be trusted as whole. */
async function allIds<W extends { id: number }>(fetchPage: (page: number) => Promise<ListPage<W>>): Promise<{ ids: number[]; incomplete: boolean }> {
  const ids = new Set<number>();
  let incomplete = false;
  for (let page: number | null = 1; page !== null; ) {
    const res = await fetchPage(page);
    for (const item of res.items) ids.add(item.id);
    incomplete ||= res.skipped.length > 0;
    page = nextPageNo(res.pagination, res.read);
  }
  return { ids: [...ids], incomplete };
}

const INCOMPLETE = 'a group or group member record was malformed, so memberships are incomplete';

export async function buildMembershipIndex(client: MotiveClient): Promise<MembershipLookup> {
  try {
    const groups = await allIds((p) => client.listPage('/v1/groups', groupsEnvelope, p));
    if (groups.incomplete) return { kind: 'unavailable', reason: INCOMPLETE };
    const byUser = new Map<string, string[]>();
    for (const groupId of groups.ids) {
      const users = await allIds((p) => client.listPage(`/v1/groups/${groupId}/users`, groupUsersEnvelope, p));
      if (users.incomplete) return { kind: 'unavailable', reason: INCOMPLETE };
      for (const userId of users.ids) {
        const list = byUser.get(String(userId)) ?? [];
        list.push(String(groupId));
        byUser.set(String(userId), list);
      }
    }
    return { kind: 'index', byUser };
  } catch (error) {
    if (error instanceof ProviderError && error.code === 'provider_scope_mismatch') return { kind: 'unavailable', reason: 'provider_scope_mismatch' };
    throw error;
  }
}
