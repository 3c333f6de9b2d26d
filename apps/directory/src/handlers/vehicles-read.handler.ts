/** Serves `directory.read.vehicles.list|get|metadata` (RPCS.directory.vehicles) from VehiclesReadService; reads need no transaction. */
import { Controller, Inject } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import {
  RPCS,
  type GetVehicleMetadataRequestV1,
  type GetVehicleReplyV1,
  type GetVehicleRequestV1,
  type ListVehiclesReplyV1,
  type ListVehiclesRequestV1,
  type GetVehicleMetadataReplyV1,
} from '@switchyard/messaging';
import { ORM } from '@switchyard/service-kit';
import type { Orm } from '@switchyard/persistence';
import { VehiclesReadService } from '../services/vehicles-read.service.js';

@Controller()
export class VehiclesReadHandler {
  private readonly vehicles: VehiclesReadService;

  constructor(@Inject(ORM) private readonly orm: Orm) {
    this.vehicles = new VehiclesReadService(orm);
  }

  @MessagePattern(RPCS.directory.vehicles.list.subject)
  list(@Payload() request: ListVehiclesRequestV1): Promise<ListVehiclesReplyV1> {
    return this.vehicles.list(this.orm.em.fork(), request);
  }

  @MessagePattern(RPCS.directory.vehicles.get.subject)
  get(@Payload() request: GetVehicleRequestV1): Promise<GetVehicleReplyV1> {
    return this.vehicles.get(this.orm.em.fork(), request);
  }

  @MessagePattern(RPCS.directory.vehicles.metadata.subject)
  metadata(@Payload() request: GetVehicleMetadataRequestV1): Promise<GetVehicleMetadataReplyV1> {
    return this.vehicles.metadata(this.orm.em.fork(), request);
  }
}
