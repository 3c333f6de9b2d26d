/**
 * Gateway → context request/reply. Every call carries the request's correlation id and trace (the
 * bus stamps the current correlation context on every message) and the configured deadline
 * (RPC_TIMEOUT_MS); a missing or slow context surfaces as BusTimeoutError /
 * BusUnavailableError, which the error filter renders as 503 `service_unavailable`.
 */
import { Inject, Injectable } from '@nestjs/common';
import type { MessageBus, RpcDefinition } from '@switchyard/messaging';
import { BUS } from '@switchyard/service-kit';
import type { z } from 'zod';
import { GATEWAY_SETTINGS, type GatewaySettings } from '../config.js';

@Injectable()
export class ContextClient {
  constructor(
    @Inject(BUS) private readonly bus: MessageBus,
    @Inject(GATEWAY_SETTINGS) private readonly settings: GatewaySettings,
  ) {}

  request<Req extends z.ZodType, Res extends z.ZodType>(rpc: RpcDefinition<Req, Res>, payload: z.input<Req>): Promise<z.output<Res>> {
    return this.bus.request(rpc, payload, { timeoutMs: this.settings.rpcTimeoutMs });
  }
}
