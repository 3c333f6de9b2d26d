/**
 * Serves `sync.operator.runs` (RPCS.operator.runs; the operator console, issue 30): a
 * connection's newest runs with their units by state and recent unit errors, read from this
 * context's own schema (db/repositories/operator-runs.repository.ts). The gateway asks it only for
 * a signed-in operator; no public route forwards it. An unknown connection has no runs (an empty list).
 */
import { Controller, Inject } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import type { Orm } from '@switchyard/persistence';
import { RPCS, type RpcReplyOf, type RpcRequestOf } from '@switchyard/messaging';
import { ORM } from '@switchyard/service-kit';
import { operatorRuns } from '../db/repositories/operator-runs.repository.js';
import { progressOf } from '../domain/sync-state.js';

type Runs = typeof RPCS.operator.runs;

@Controller()
export class OperatorRunsHandler {
  constructor(@Inject(ORM) private readonly orm: Orm) {}

  @MessagePattern(RPCS.operator.runs.subject)
  async runs(@Payload() { connectionId, limit }: RpcRequestOf<Runs>): Promise<RpcReplyOf<Runs>> {
    const rows = await operatorRuns(this.orm.em.fork(), connectionId, limit);
    return {
      runs: rows.map((r) => ({
        id: r.id,
        origin: r.origin,
        status: r.status,
        requestedAt: r.requested_at,
        startFrom: r.start_from,
        intervalEnd: r.interval_end,
        ...(r.completed_at ? { completedAt: r.completed_at } : {}),
        ...(r.failure_reason ? { failureReason: r.failure_reason } : {}),
        attempts: r.attempts,
        purposes: r.purposes,
        admittedUnits: r.admitted_units,
        receiptedUnits: r.receipted_units,
        // A run admits at least one unit (the planner refuses an empty plan).
        progress: r.admitted_units > 0 ? progressOf(r.receipted_units, r.admitted_units) : 0,
        units: r.units,
        errors: r.errors,
      })),
    };
  }
}
