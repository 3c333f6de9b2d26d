/**
 * `<context>.ping` over request/reply: the gateway's (and operators') view of whether a context is
 * up and ready, answered with the same readiness the context's /readyz reports — also while
 * migrations are pending (it says `ready: false` then instead of refusing).
 */
import { Controller, Inject } from '@nestjs/common';
import { MessagePattern } from '@nestjs/microservices';
import type { PingResponseV1 } from '@switchyard/messaging';
import { readiness } from '../health.js';
import { RUNTIME, type ServiceRuntime } from '../runtime.js';
import type { BusPatternExtras } from '../transport/bus-transport.js';

export const SERVICE_VERSION = '0.1.0';

@Controller()
export class PingHandler {
  constructor(@Inject(RUNTIME) private readonly runtime: ServiceRuntime) {}

  @MessagePattern('{context}.ping', { beforeMigrations: true } satisfies BusPatternExtras)
  async ping(): Promise<PingResponseV1> {
    const { ready } = await readiness(this.runtime);
    return { service: this.runtime.service, instanceId: this.runtime.instanceId, ready, version: SERVICE_VERSION };
  }
}
