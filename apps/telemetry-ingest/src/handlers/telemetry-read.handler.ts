/** Serves `telemetry.read.latest|locations|history` (RPCS.telemetry) from TelemetryReadService; reads need no transaction. */
import { Controller, Inject } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import {
  RPCS,
  type HistoryReplyV1,
  type HistoryRequestV1,
  type LatestTelemetryReplyV1,
  type LatestTelemetryRequestV1,
  type ListLocationsReplyV1,
  type ListLocationsRequestV1,
} from '@switchyard/messaging';
import type { Orm } from '@switchyard/persistence';
import { ORM } from '@switchyard/service-kit';
import { TelemetryReadService } from '../services/telemetry-read.service.js';

@Controller()
export class TelemetryReadHandler {
  private readonly telemetry: TelemetryReadService;

  constructor(@Inject(ORM) private readonly orm: Orm) {
    this.telemetry = new TelemetryReadService(orm);
  }

  @MessagePattern(RPCS.telemetry.latest.subject)
  latest(@Payload() request: LatestTelemetryRequestV1): Promise<LatestTelemetryReplyV1> {
    return this.telemetry.latest(this.orm.em.fork(), request);
  }

  @MessagePattern(RPCS.telemetry.locations.subject)
  locations(@Payload() request: ListLocationsRequestV1): Promise<ListLocationsReplyV1> {
    return this.telemetry.locations(this.orm.em.fork(), request);
  }

  @MessagePattern(RPCS.telemetry.history.subject)
  history(@Payload() request: HistoryRequestV1): Promise<HistoryReplyV1> {
    return this.telemetry.history(this.orm.em.fork(), request);
  }
}
