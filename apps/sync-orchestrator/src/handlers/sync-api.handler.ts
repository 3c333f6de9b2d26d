/**
 * Serves `sync.create|list|get|retry|cancel` (gateway → orchestrator request/reply). Several
 * orchestrator processes form one queue group per subject. The handlers only unwrap and delegate;
 * typed RpcErrors from the lifecycle service travel to the gateway as they are.
 */
import { Inject, Injectable, type BeforeApplicationShutdown, type OnApplicationBootstrap } from '@nestjs/common';
import { RPCS, RpcError, type Subscription } from '@switchyard/messaging';
import { RUNTIME, serveRpc, type ServiceRuntime } from '@switchyard/service-kit';
import { SyncLifecycleService } from '../services/sync-lifecycle.service.js';

@Injectable()
export class SyncApiHandler implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private subscriptions: Subscription[] = [];

  constructor(
    @Inject(RUNTIME) private readonly runtime: ServiceRuntime,
    private readonly lifecycle: SyncLifecycleService,
  ) {}

  onApplicationBootstrap() {
    const { bus, logger } = this.runtime;
    const lifecycle = this.lifecycle;
    this.subscriptions = [
      serveRpc(bus, logger, RPCS.sync.create, this.whenMigrated(async (request) => ({ sync: await lifecycle.create(request) }))),
      serveRpc(bus, logger, RPCS.sync.get, this.whenMigrated(async ({ caller, syncId }) => ({ sync: await lifecycle.get(caller, syncId) }))),
      serveRpc(bus, logger, RPCS.sync.list, this.whenMigrated((request) => lifecycle.list(request))),
      serveRpc(bus, logger, RPCS.sync.retry, this.whenMigrated(async ({ caller, syncId }) => ({ sync: await lifecycle.retry(caller, syncId) }))),
      serveRpc(bus, logger, RPCS.sync.cancel, this.whenMigrated(async ({ caller, syncId }) => ({ sync: await lifecycle.cancel(caller, syncId) }))),
    ];
  }

  /** MIGRATE_ON_START=false before the release step ran: the tables may not exist yet, so 503. */
  private whenMigrated<Req, Res>(handler: (request: Req) => Promise<Res>): (request: Req) => Promise<Res> {
    return async (request) => {
      if (!this.runtime.state.migrated) throw new RpcError('service_unavailable', 'migrations pending');
      return handler(request);
    };
  }

  async beforeApplicationShutdown() {
    await Promise.all(this.subscriptions.map((s) => s.drain()));
  }
}
