/**
 * Retention of the fault feed, on service-kit's retention schedule (RetentionService: every
 * process, the first pass a minute after start, then hourly):
 * - transitions (FAULT_EVENT_RETENTION_MS, 90 days; libs/contracts fault-reads.ts), one statement
 *   (FaultReadRepository.prune — concurrent passes delete disjoint or no rows). Only published
 *   transitions go, so the subjects never miss one; a reader whose cursor lies before the pruned
 *   prefix is answered `cursor_beyond_retention`;
 * - then cleared occurrences (decision 0030): cleared more than the same 90 days ago, with no
 *   transition left on the feed and not the newest clear of their vehicle and fault key, in
 *   skip-locked chunks of 10,000 (FaultReadRepository.pruneClearedOccurrences). Open occurrences
 *   are state and never go; no read serves a cleared occurrence except through its transitions.
 */
import { Injectable } from '@nestjs/common';
import { FAULT_EVENT_RETENTION_MS } from '@switchyard/contracts';
import { pruneInChunks, RetentionService } from '@switchyard/service-kit';
import { FaultReadRepository } from '../db/repositories/fault-read.repository.js';

const CHUNK = 10_000;

@Injectable()
export class FaultRetention extends RetentionService {
  protected readonly what = 'fault transitions and cleared occurrences';
  private readonly repository = new FaultReadRepository();

  /** One pass now; returns how many transitions and occurrences were pruned. */
  async prune(now = new Date()): Promise<number> {
    const cutoff = new Date(now.getTime() - FAULT_EVENT_RETENTION_MS);
    const transitions = await this.repository.prune(this.runtime.orm.em.fork(), cutoff);
    const occurrences = await pruneInChunks(CHUNK, (limit) => this.repository.pruneClearedOccurrences(this.runtime.orm.em.fork(), cutoff, limit));
    return transitions + occurrences;
  }
}
