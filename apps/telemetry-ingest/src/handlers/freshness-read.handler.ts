/** Serves `telemetry.read.freshness` (RPCS.telemetry.freshness) from FreshnessService: one connection's ConnectionFreshness; a read, no transaction. */
import { Controller, Inject } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { RPCS, type ConnectionFreshnessReplyV1, type ConnectionFreshnessRequestV1 } from '@switchyard/messaging';
import type { Orm } from '@switchyard/persistence';
import { ORM } from '@switchyard/service-kit';
import { FRESHNESS_SETTINGS, type FreshnessSettings } from '../config.js';
import { FreshnessService } from '../services/freshness.service.js';

@Controller()
export class FreshnessReadHandler {
  private readonly freshness: FreshnessService;

  constructor(@Inject(ORM) private readonly orm: Orm, @Inject(FRESHNESS_SETTINGS) settings: FreshnessSettings) {
    this.freshness = new FreshnessService(orm, settings);
  }

  @MessagePattern(RPCS.telemetry.freshness.subject)
  read(@Payload() request: ConnectionFreshnessRequestV1): Promise<ConnectionFreshnessReplyV1> {
    return this.freshness.read(this.orm.em.fork(), request.connectionId);
  }
}
