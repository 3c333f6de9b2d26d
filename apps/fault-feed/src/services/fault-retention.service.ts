/**
 * Prunes the transition feed (FAULT_EVENT_RETENTION_MS, 90 days; libs/contracts fault-reads.ts):
 * once an hour (first pass a minute after start), every process, each pass one statement
 * (FaultReadRepository.prune — concurrent passes delete disjoint or no rows). Only published
 * transitions go, so the subjects never miss one; a reader whose cursor lies before the pruned
 * prefix is answered `cursor_beyond_retention`.
 */
import { Inject, Injectable, type BeforeApplicationShutdown, type OnApplicationBootstrap } from '@nestjs/common';
import { FAULT_EVENT_RETENTION_MS } from '@switchyard/contracts';
import { RUNTIME, type ServiceRuntime } from '@switchyard/service-kit';
import { FaultReadRepository } from '../db/repositories/fault-read.repository.js';

const PASS_MS = 60 * 60 * 1000;
const FIRST_PASS_MS = 60 * 1000;

@Injectable()
export class FaultRetention implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly repository = new FaultReadRepository();
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<unknown> | undefined;

  constructor(@Inject(RUNTIME) private readonly runtime: ServiceRuntime) {}

  onApplicationBootstrap() {
    this.schedule(FIRST_PASS_MS);
  }

  async beforeApplicationShutdown() {
    clearTimeout(this.timer);
    this.timer = undefined;
    await this.running;
  }

  /** One pass now; returns how many transitions were pruned. */
  prune(now = new Date()): Promise<number> {
    return this.repository.prune(this.runtime.orm.em.fork(), new Date(now.getTime() - FAULT_EVENT_RETENTION_MS));
  }

  private schedule(delay: number) {
    this.timer = setTimeout(() => {
      this.running = (this.runtime.state.migrated ? this.prune() : Promise.resolve(0))
        .then((pruned) => pruned > 0 && this.runtime.logger.info({ pruned }, 'fault transitions pruned (retention)'))
        .catch((error: unknown) => this.runtime.logger.warn({ err: error }, 'fault retention: prune failed, will retry'))
        .finally(() => this.timer !== undefined && this.schedule(PASS_MS));
    }, delay);
    this.timer.unref();
  }
}
