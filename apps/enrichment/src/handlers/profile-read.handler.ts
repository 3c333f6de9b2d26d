/** Serves `enrichment.read.profile` (RPCS.enrichment) from ProfileReadService; reads need no transaction. */
import { Controller, Inject } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { RPCS, type GetVehicleProfileRequestV1, type GetVehicleProfileReplyV1 } from '@switchyard/messaging';
import type { Orm } from '@switchyard/persistence';
import { ORM } from '@switchyard/service-kit';
import { ProfileReadService } from '../services/profile-read.service.js';

@Controller()
export class ProfileReadHandler {
  private readonly profiles = new ProfileReadService();

  constructor(@Inject(ORM) private readonly orm: Orm) {}

  @MessagePattern(RPCS.enrichment.profile.subject)
  profile(@Payload() request: GetVehicleProfileRequestV1): Promise<GetVehicleProfileReplyV1> {
    return this.profiles.profile(this.orm.em.fork(), request);
  }
}
