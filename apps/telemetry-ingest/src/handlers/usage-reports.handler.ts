/** Serves `telemetry.read.usage.counter|utilization|fleet` (RPCS.telemetry.usage) from UsageReportService; reads need no transaction. */
import { Controller, Inject } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import {
  RPCS,
  type UsageCounterReplyV1,
  type UsageCounterRequestV1,
  type UsageFleetReplyV1,
  type UsageFleetRequestV1,
  type UsageUtilizationReplyV1,
  type UsageUtilizationRequestV1,
} from '@switchyard/messaging';
import type { Orm } from '@switchyard/persistence';
import { ORM } from '@switchyard/service-kit';
import { UsageReportService } from '../services/usage-report.service.js';

@Controller()
export class UsageReportsHandler {
  private readonly usage: UsageReportService;

  constructor(@Inject(ORM) private readonly orm: Orm) {
    this.usage = new UsageReportService(orm);
  }

  @MessagePattern(RPCS.telemetry.usage.counter.subject)
  counter(@Payload() request: UsageCounterRequestV1): Promise<UsageCounterReplyV1> {
    return this.usage.counter(this.orm.em.fork(), request);
  }

  @MessagePattern(RPCS.telemetry.usage.utilization.subject)
  utilization(@Payload() request: UsageUtilizationRequestV1): Promise<UsageUtilizationReplyV1> {
    return this.usage.utilization(this.orm.em.fork(), request);
  }

  @MessagePattern(RPCS.telemetry.usage.fleet.subject)
  fleet(@Payload() request: UsageFleetRequestV1): Promise<UsageFleetReplyV1> {
    return this.usage.fleet(this.orm.em.fork(), request);
  }
}
