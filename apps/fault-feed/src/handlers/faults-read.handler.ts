/** Serves `faults.read.open|events` (RPCS.faults) from FaultReadService; reads need no transaction. */
import { Controller, Inject } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { RPCS, type ListFaultEventsReplyV1, type ListFaultEventsRequestV1, type ListOpenFaultsReplyV1, type ListOpenFaultsRequestV1 } from '@switchyard/messaging';
import type { Orm } from '@switchyard/persistence';
import { ORM } from '@switchyard/service-kit';
import { FaultReadService } from '../services/fault-read.service.js';

@Controller()
export class FaultsReadHandler {
  private readonly faults = new FaultReadService();

  constructor(@Inject(ORM) private readonly orm: Orm) {}

  @MessagePattern(RPCS.faults.open.subject)
  open(@Payload() request: ListOpenFaultsRequestV1): Promise<ListOpenFaultsReplyV1> {
    return this.faults.open(this.orm.em.fork(), request);
  }

  @MessagePattern(RPCS.faults.events.subject)
  events(@Payload() request: ListFaultEventsRequestV1): Promise<ListFaultEventsReplyV1> {
    return this.faults.events(this.orm.em.fork(), request);
  }
}
