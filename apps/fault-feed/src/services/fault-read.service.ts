/**
 * The fault reads (RPCS.faults, spec 2.9, 4.4, 6): the open occurrences of visible vehicles in
 * open-sequence order, and the transition feed after a sequence. Decisions:
 * - a page is one frame statement (service-kit read-frame.ts): limit + 1 rows, items rendered as
 *   JSON by PostgreSQL and forwarded as text (a framed reply);
 * - the feed's position moves past every transition it scanned, also past those of vehicles
 *   hidden now (they are left out, as every stored read leaves hidden vehicles out), so a page can
 *   be short or empty while `hasMore` is true;
 * - a position before the retention horizon (fault_retention) answers `beyondRetention` and no
 *   events: the reader must learn that events are gone instead of silently resuming later. No
 *   position (a first read) starts at the oldest retained transition.
 */
import type { ListFaultEventsReplyV1, ListFaultEventsRequestV1, ListOpenFaultsReplyV1, ListOpenFaultsRequestV1 } from '@switchyard/messaging';
import type { Em } from '@switchyard/persistence';
import { FaultReadRepository } from '../db/repositories/fault-read.repository.js';

const isBefore = (a: string, b: string) => BigInt(a) < BigInt(b);

export class FaultReadService {
  constructor(private readonly repository = new FaultReadRepository()) {}

  async open(em: Em, request: ListOpenFaultsRequestV1): Promise<ListOpenFaultsReplyV1> {
    const page = await this.repository.openPage(em, request.connectionId, request.after ?? '0', request.limit);
    return { meta: { ...(page.hasMore && page.last ? { next: page.last } : {}), hasMore: page.hasMore }, body: page.items };
  }

  async events(em: Em, request: ListFaultEventsRequestV1): Promise<ListFaultEventsReplyV1> {
    const pruned = await this.repository.prunedThrough(em, request.connectionId);
    if (request.after !== undefined && isBefore(request.after, pruned)) return { meta: { last: request.after, hasMore: true, beyondRetention: true }, body: '[]' };
    const after = request.after ?? pruned;
    const page = await this.repository.eventsPage(em, request.connectionId, after, request.limit);
    return { meta: { last: page.last ?? after, hasMore: page.hasMore, beyondRetention: false }, body: page.items };
  }
}
