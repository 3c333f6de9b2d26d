/**
 * Driver → group memberships for DriverRecord.groupIds. Motive exposes membership only per group
 * (`GET /v1/groups/{id}/users`, motive.md §4), so the index costs one listing of groups plus one
 * listing per group; the adapter builds it once per driver listing. Invariant: an index is either
 * complete or absent — a missing permission on groups makes every driver's groupIds `missing`
 * (reason `provider_scope_mismatch`), never an empty list that would read as "in no group".
 */
import { ProviderError } from '../errors.js';
import { MotiveClient, nextPageNo } from './motive.client.js';
import type { MembershipLookup } from './motive.mapper.js';
import { groupsEnvelope, groupUsersEnvelope, type ListPage } from './motive.schemas.js';

async function allIds<W extends { id: number }>(fetchPage: (page: number) => Promise<ListPage<W>>): Promise<number[]> {
  const ids = new Set<number>();
  for (let page: number | null = 1; page !== null; ) {
    const res = await fetchPage(page);
    for (const item of res.items) ids.add(item.id);
    page = nextPageNo(res.pagination, res.items.length);
  }
  return [...ids];
}

export async function buildMembershipIndex(client: MotiveClient): Promise<MembershipLookup> {
  try {
    const groupIds = await allIds((p) => client.listPage('/v1/groups', groupsEnvelope, p));
    const byUser = new Map<string, string[]>();
    for (const groupId of groupIds) {
      const userIds = await allIds((p) => client.listPage(`/v1/groups/${groupId}/users`, groupUsersEnvelope, p));
      for (const userId of userIds) {
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
