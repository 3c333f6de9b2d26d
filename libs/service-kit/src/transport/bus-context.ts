/**
 * What a bus handler gets besides its payload (`@Ctx() ctx`): the message headers
 * (correlation id, trace parent) and, for a durable message, the delivery — its msgId (the
 * idempotency key), delivery count and `inProgress()` for long work. Request/reply handlers have
 * no delivery.
 */
import { BaseRpcContext } from '@nestjs/microservices';
import type { Delivery, MessageHeaders } from '@switchyard/messaging';

export class BusContext extends BaseRpcContext<[string, MessageHeaders, Delivery<unknown> | undefined]> {
  /** The logical subject the message arrived on. */
  get subject(): string {
    return this.args[0];
  }

  get headers(): MessageHeaders {
    return this.args[1];
  }

  /**
   * The durable delivery of `payload` (the handler's `@Payload()`, which types it); throws for a
   * request/reply message, which has none.
   */
  delivery<T>(payload: T): Delivery<T> {
    const delivery = this.args[2];
    if (!delivery || delivery.payload !== payload) throw new TypeError(`${this.subject}: no durable delivery of this payload`);
    return delivery as Delivery<T>;
  }

  /**
   * The delivery of a typed `@EventPattern` handler's payload from its `@Ctx() ctx: unknown`
   * (Nest's typed overload wants every parameter after the payload to accept `unknown`).
   */
  static deliveryOf<T>(ctx: unknown, payload: T): Delivery<T> {
    if (!(ctx instanceof BusContext)) throw new TypeError('not a bus message context');
    return ctx.delivery(payload);
  }
}
