/**
 * The fault reads (RPCS.faults, spec 2.9, 4.4, 6): the open occurrences of visible vehicles in
 * open-sequence order, and the transition feed after a sequence. Decisions:
 * - a page reads one row more than it serves to know whether more follow;
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
    const rows = await this.repository.openPage(em, request.connectionId, request.after ?? '0', request.limit + 1);
    const page = rows.slice(0, request.limit);
    const hasMore = rows.length > request.limit;
    const last = page.at(-1);
    return {
      faults: page.map((r) => ({ id: r.id, vehicle_id: r.vehicle_id, fault_key: r.fault_key, code: r.code, opened_at: r.opened_at, bootstrap: r.bootstrap, description: r.description })),
      ...(hasMore && last ? { next: last.open_sequence } : {}),
      hasMore,
    };
  }

  async events(em: Em, request: ListFaultEventsRequestV1): Promise<ListFaultEventsReplyV1> {
    const pruned = await this.repository.prunedThrough(em, request.connectionId);
    if (request.after !== undefined && isBefore(request.after, pruned)) return { events: [], last: request.after, hasMore: true, beyondRetention: true };
    const after = request.after ?? pruned;
    const rows = await this.repository.eventsPage(em, request.connectionId, after, request.limit + 1);
    const scanned = rows.slice(0, request.limit);
    return {
      events: scanned
        .filter((r) => !r.hidden)
        .map((r) => ({
          id: r.id,
          sequence: Number(r.sequence),
          connection_id: request.connectionId,
          occurrence_id: r.occurrence_id,
          vehicle_id: r.vehicle_id,
          kind: r.kind,
          observed_at: r.observed_at,
          bootstrap: r.bootstrap,
        })),
      last: scanned.at(-1)?.sequence ?? after,
      hasMore: rows.length > request.limit,
      beyondRetention: false,
    };
  }
}
