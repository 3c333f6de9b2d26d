/** Serves `directory.read.trips.list|get` (RPCS.directory.trips) from TripsReadService; reads need no transaction. */
import { Controller, Inject } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { RPCS, type GetTripReplyV1, type GetTripRequestV1, type ListTripsReplyV1, type ListTripsRequestV1 } from '@switchyard/messaging';
import { ORM } from '@switchyard/service-kit';
import type { Orm } from '@switchyard/persistence';
import { TripsReadService } from '../services/trips-read.service.js';

@Controller()
export class TripsReadHandler {
  private readonly trips: TripsReadService;

  constructor(@Inject(ORM) private readonly orm: Orm) {
    this.trips = new TripsReadService(orm);
  }

  @MessagePattern(RPCS.directory.trips.list.subject)
  list(@Payload() request: ListTripsRequestV1): Promise<ListTripsReplyV1> {
    return this.trips.list(this.orm.em.fork(), request);
  }

  @MessagePattern(RPCS.directory.trips.get.subject)
  get(@Payload() request: GetTripRequestV1): Promise<GetTripReplyV1> {
    return this.trips.get(this.orm.em.fork(), request);
  }
}
