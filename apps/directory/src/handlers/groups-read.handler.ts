/** Serves `directory.read.groups.directory|inventory|get` (libs/messaging directory-read-groups.v1.ts) from GroupsReadService. */
import { Inject, Injectable } from '@nestjs/common';
import { DIRECTORY_GROUPS_RPCS, type Subscription } from '@switchyard/messaging';
import { RUNTIME, type ServiceRuntime } from '@switchyard/service-kit';
import { GroupsReadService } from '../services/groups-read.service.js';
import { DirectoryReadHandler } from './read.handler.js';

@Injectable()
export class GroupsReadHandler extends DirectoryReadHandler {
  private readonly groups: GroupsReadService;

  constructor(@Inject(RUNTIME) runtime: ServiceRuntime) {
    super(runtime);
    this.groups = new GroupsReadService(runtime.orm);
  }

  protected endpoints(): Subscription[] {
    return [
      this.serve(DIRECTORY_GROUPS_RPCS.directory, (em, request) => this.groups.directory(em, request)),
      this.serve(DIRECTORY_GROUPS_RPCS.inventory, (em, request) => this.groups.inventory(em, request)),
      this.serve(DIRECTORY_GROUPS_RPCS.get, (em, request) => this.groups.get(em, request)),
    ];
  }
}
