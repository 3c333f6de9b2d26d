/**
 * Prunes the transition feed (FAULT_EVENT_RETENTION_MS, 90 days; libs/contracts fault-reads.ts):
 * on service-kit's retention schedule (startRetentionPasses: every process, the first pass a minute
 * after start, then hourly), each pass one statement (FaultReadRepository.prune — concurrent passes
 * delete disjoint or no rows). Only published transitions go, so the subjects never miss one; a
 * reader whose cursor lies before the pruned prefix is answered `cursor_beyond_retention`.
 */
import { Inject, Injectable, type BeforeApplicationShutdown, type OnApplicationBootstrap } from '@nestjs/common';
import { FAULT_EVENT_RETENTION_MS } from '@switchyard/contracts';
import { RUNTIME, startRetentionPasses, type RetentionJob, type ServiceRuntime } from '@switchyard/service-kit';
import { FaultReadRepository } from '../db/repositories/fault-read.repository.js';

@Injectable()
export class FaultRetention implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly repository = new FaultReadRepository();
  private job: RetentionJob | undefined;

  constructor(@Inject(RUNTIME) private readonly runtime: ServiceRuntime) {}

  onApplicationBootstrap() {
    this.job = startRetentionPasses(this.runtime, 'fault transitions', () => this.prune());
  }

  async beforeApplicationShutdown() {
    await this.job?.stop();
  }

  /** One pass now; returns how many transitions were pruned. */
  prune(now = new Date()): Promise<number> {
    return this.repository.prune(this.runtime.orm.em.fork(), new Date(now.getTime() - FAULT_EVENT_RETENTION_MS));
  }
}
