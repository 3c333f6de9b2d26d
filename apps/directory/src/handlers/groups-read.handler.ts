/** Serves `directory.read.groups.directory|inventory|get` (RPCS.directory.groups) from GroupsReadService; reads need no transaction. */
import { Controller, Inject } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import {
  RPCS,
  type GetGroupReplyV1,
  type GetGroupRequestV1,
  type GroupInventoryReplyV1,
  type GroupInventoryRequestV1,
  type ListGroupDirectoryReplyV1,
  type ListGroupDirectoryRequestV1,
} from '@switchyard/messaging';
import { ORM } from '@switchyard/service-kit';
import type { Orm } from '@switchyard/persistence';
import { GroupsReadService } from '../services/groups-read.service.js';

@Controller()
export class GroupsReadHandler {
  private readonly groups: GroupsReadService;

  constructor(@Inject(ORM) private readonly orm: Orm) {
    this.groups = new GroupsReadService(orm);
  }

  @MessagePattern(RPCS.directory.groups.directory.subject)
  directory(@Payload() request: ListGroupDirectoryRequestV1): Promise<ListGroupDirectoryReplyV1> {
    return this.groups.directory(this.orm.em.fork(), request);
  }

  @MessagePattern(RPCS.directory.groups.inventory.subject)
  inventory(@Payload() request: GroupInventoryRequestV1): Promise<GroupInventoryReplyV1> {
    return this.groups.inventory(this.orm.em.fork(), request);
  }

  @MessagePattern(RPCS.directory.groups.get.subject)
  get(@Payload() request: GetGroupRequestV1): Promise<GetGroupReplyV1> {
    return this.groups.get(this.orm.em.fork(), request);
  }
}
