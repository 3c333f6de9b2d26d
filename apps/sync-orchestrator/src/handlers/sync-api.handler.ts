/**
 * Serves `sync.create|list|get|retry|cancel` (RPCS.sync, gateway → orchestrator request/reply).
 * Several orchestrator processes form one queue group per subject. The handlers only unwrap and
 * delegate; typed RpcErrors from the lifecycle service travel to the gateway as they are.
 */
import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { RPCS, type RpcReplyOf, type RpcRequestOf } from '@switchyard/messaging';
import { SyncLifecycleService } from '../services/sync-lifecycle.service.js';

type Create = typeof RPCS.sync.create;
type ById = typeof RPCS.sync.get;
type List = typeof RPCS.sync.list;

@Controller()
export class SyncApiHandler {
  constructor(private readonly lifecycle: SyncLifecycleService) {}

  @MessagePattern(RPCS.sync.create.subject)
  async create(@Payload() request: RpcRequestOf<Create>): Promise<RpcReplyOf<Create>> {
    return { sync: await this.lifecycle.create(request) };
  }

  @MessagePattern(RPCS.sync.get.subject)
  async get(@Payload() { caller, syncId }: RpcRequestOf<ById>): Promise<RpcReplyOf<ById>> {
    return { sync: await this.lifecycle.get(caller, syncId) };
  }

  @MessagePattern(RPCS.sync.list.subject)
  list(@Payload() request: RpcRequestOf<List>): Promise<RpcReplyOf<List>> {
    return this.lifecycle.list(request);
  }

  @MessagePattern(RPCS.sync.retry.subject)
  async retry(@Payload() { caller, syncId }: RpcRequestOf<ById>): Promise<RpcReplyOf<ById>> {
    return { sync: await this.lifecycle.retry(caller, syncId) };
  }

  @MessagePattern(RPCS.sync.cancel.subject)
  async cancel(@Payload() { caller, syncId }: RpcRequestOf<ById>): Promise<RpcReplyOf<ById>> {
    return { sync: await this.lifecycle.cancel(caller, syncId) };
  }
}
