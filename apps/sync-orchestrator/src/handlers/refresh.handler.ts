/**
 * Serves `sync.collection.refresh` (RPCS.collection.refresh, gateway → orchestrator): one
 * vehicle's on-demand refresh. Unwraps and delegates to VehicleRefreshService; `not_found` travels
 * to the gateway as it is.
 */
import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { RPCS, type RpcReplyOf, type RpcRequestOf } from '@switchyard/messaging';
import { VehicleRefreshService } from '../services/vehicle-refresh.service.js';

type Refresh = typeof RPCS.collection.refresh;

@Controller()
export class RefreshHandler {
  constructor(private readonly refreshes: VehicleRefreshService) {}

  @MessagePattern(RPCS.collection.refresh.subject)
  refresh(@Payload() request: RpcRequestOf<Refresh>): Promise<RpcReplyOf<Refresh>> {
    return this.refreshes.refresh(request);
  }
}
