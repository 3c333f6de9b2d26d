/**
 * Prunes the transition feed (FAULT_EVENT_RETENTION_MS, 90 days; libs/contracts fault-reads.ts):
 * on service-kit's retention schedule (RetentionService: every process, the first pass a minute
 * after start, then hourly), each pass one statement (FaultReadRepository.prune — concurrent passes
 * delete disjoint or no rows). Only published transitions go, so the subjects never miss one; a
 * reader whose cursor lies before the pruned prefix is answered `cursor_beyond_retention`.
 */
import { Injectable } from '@nestjs/common';
import { FAULT_EVENT_RETENTION_MS } from '@switchyard/contracts';
import { RetentionService } from '@switchyard/service-kit';
import { FaultReadRepository } from '../db/repositories/fault-read.repository.js';

@Injectable()
export class FaultRetention extends RetentionService {
  protected readonly what = 'fault transitions';
  private readonly repository = new FaultReadRepository();

  /** One pass now; returns how many transitions were pruned. */
  prune(now = new Date()): Promise<number> {
    return this.repository.prune(this.runtime.orm.em.fork(), new Date(now.getTime() - FAULT_EVENT_RETENTION_MS));
  }
}
