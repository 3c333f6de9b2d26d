/**
 * Serving request/reply endpoints from a context: the handler runs inside the caller's
 * correlation context (so its log lines carry the gateway's request id), unexpected errors are
 * logged once without the payload and travel as `internal_error`, typed RpcErrors pass through.
 */
import { RpcError, type MessageBus, type RpcDefinition, type RpcHandler, type Subscription } from '@switchyard/messaging';
import type { z } from 'zod';
import { correlationIdFrom, runWithCorrelation } from './correlation.js';
import type { Logger } from './logger.js';

export function serveRpc<Req extends z.ZodType, Res extends z.ZodType>(
  bus: MessageBus,
  logger: Logger,
  rpc: RpcDefinition<Req, Res>,
  handler: RpcHandler<Req, Res>,
): Subscription {
  return bus.serve(rpc, (request, headers) =>
    runWithCorrelation({ correlationId: correlationIdFrom(headers.correlationId), traceparent: headers.traceparent }, async () => {
      try {
        return await handler(request, headers);
      } catch (error) {
        if (error instanceof RpcError) throw error;
        logger.error({ err: error, subject: rpc.subject }, 'rpc handler failed');
        throw new RpcError('internal_error');
      }
    }),
  );
}
