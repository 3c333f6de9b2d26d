/**
 * `<context>.ping` v1: the liveness/readiness probe every context serves over request/reply.
 * Invariant: `ready` is false until the context's own dependencies (database, streams) are usable;
 * a context that answers at all is alive.
 */
import { z } from 'zod';

export const pingRequestV1 = z.object({}).strict();

export const pingResponseV1 = z
  .object({
    service: z.string().min(1),
    instanceId: z.string().min(1),
    ready: z.boolean(),
    version: z.string().min(1),
  })
  .strict();

export type PingRequestV1 = z.output<typeof pingRequestV1>;
export type PingResponseV1 = z.output<typeof pingResponseV1>;
