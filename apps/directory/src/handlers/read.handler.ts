/**
 * The base of every `directory.read.<resource>` request/reply handler: serve the resource's RPCs
 * (every directory process joins each subject's queue group), refuse with `service_unavailable`
 * while migrations are pending (MIGRATE_ON_START=false before the release step: the tables may not
 * exist yet), and drain on shutdown. A resource handler lists its endpoints in `endpoints()` and
 * delegates each to its read service; typed RpcErrors (`not_found`) travel to the gateway as they are.
 */
import type { BeforeApplicationShutdown, OnApplicationBootstrap } from '@nestjs/common';
import { RpcError, type RpcDefinition, type Subscription } from '@switchyard/messaging';
import type { Em } from '@switchyard/persistence';
import { serveRpc, type ServiceRuntime } from '@switchyard/service-kit';
import type { z } from 'zod';

export abstract class DirectoryReadHandler implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private subscriptions: Subscription[] = [];

  constructor(protected readonly runtime: ServiceRuntime) {}

  /** Subscribes the resource's endpoints with `this.serve(rpc, handler)`. */
  protected abstract endpoints(): Subscription[];

  /** Serves one RPC; the handler gets a fresh entity manager (reads need no transaction). */
  protected serve<Req extends z.ZodType, Res extends z.ZodType>(rpc: RpcDefinition<Req, Res>, handler: (em: Em, request: z.output<Req>) => Promise<z.input<Res>>): Subscription {
    return serveRpc(this.runtime.bus, this.runtime.logger, rpc, async (request) => {
      if (!this.runtime.state.migrated) throw new RpcError('service_unavailable', 'migrations pending');
      return handler(this.runtime.orm.em.fork(), request);
    });
  }

  onApplicationBootstrap(): void {
    this.subscriptions = this.endpoints();
  }

  async beforeApplicationShutdown(): Promise<void> {
    await Promise.all(this.subscriptions.map((s) => s.drain()));
  }
}
