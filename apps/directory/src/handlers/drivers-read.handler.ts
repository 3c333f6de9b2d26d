/** Serves `directory.read.drivers.list|get` (RPCS.directory.drivers) from DriversReadService; reads need no transaction. */
import { Controller, Inject } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { RPCS, type GetDriverReplyV1, type GetDriverRequestV1, type ListDriversReplyV1, type ListDriversRequestV1 } from '@switchyard/messaging';
import { ORM } from '@switchyard/service-kit';
import type { Orm } from '@switchyard/persistence';
import { DriversReadService } from '../services/drivers-read.service.js';

@Controller()
export class DriversReadHandler {
  private readonly drivers: DriversReadService;

  constructor(@Inject(ORM) private readonly orm: Orm) {
    this.drivers = new DriversReadService(orm);
  }

  @MessagePattern(RPCS.directory.drivers.list.subject)
  list(@Payload() request: ListDriversRequestV1): Promise<ListDriversReplyV1> {
    return this.drivers.list(this.orm.em.fork(), request);
  }

  @MessagePattern(RPCS.directory.drivers.get.subject)
  get(@Payload() request: GetDriverRequestV1): Promise<GetDriverReplyV1> {
    return this.drivers.get(this.orm.em.fork(), request);
  }
}
