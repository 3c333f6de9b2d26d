/**
 * `<context>.ping` over request/reply: the gateway's (and operators') view of whether a context is
 * up and ready, answered with the same readiness the context's /readyz reports.
 */
import { Inject, Injectable, type BeforeApplicationShutdown, type OnApplicationBootstrap } from '@nestjs/common';
import type { RpcDefinition, Subscription } from '@switchyard/messaging';
import type { pingRequestV1, pingResponseV1 } from '@switchyard/messaging';
import { readiness } from '../health.js';
import { serveRpc } from '../rpc.js';
import { RUNTIME, type ServiceRuntime } from '../runtime.js';

export const PING_RPC = Symbol('switchyard.ping-rpc');
export const SERVICE_VERSION = '0.1.0';

@Injectable()
export class PingHandler implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private subscription: Subscription | undefined;

  constructor(
    @Inject(RUNTIME) private readonly runtime: ServiceRuntime,
    @Inject(PING_RPC) private readonly rpc: RpcDefinition<typeof pingRequestV1, typeof pingResponseV1>,
  ) {}

  onApplicationBootstrap() {
    this.subscription = serveRpc(this.runtime.bus, this.runtime.logger, this.rpc, async () => ({
      service: this.runtime.service,
      instanceId: this.runtime.instanceId,
      ready: (await readiness(this.runtime)).ready,
      version: SERVICE_VERSION,
    }));
  }

  async beforeApplicationShutdown() {
    await this.subscription?.drain();
  }
}
