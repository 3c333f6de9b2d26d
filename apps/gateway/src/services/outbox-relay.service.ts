/**
 * Publishes the gateway's outbox to JetStream: connection configuration, connection status,
 * application grant and webhook-endpoint-disabled events (service-kit TableOutboxRelay: each row
 * under the event whose subject pattern matches it, in id order, one relay at a time across
 * replicas, marked in the transaction that claimed it). A crash after publishing but before commit
 * republishes the same msgIds: JetStream's duplicate window drops them and consumers ignore
 * revisions they already hold.
 */
import { Inject, Injectable } from '@nestjs/common';
import { EVENTS } from '@switchyard/messaging';
import { RUNTIME, TableOutboxRelay, type ServiceRuntime } from '@switchyard/service-kit';

/** The gateway outbox's advisory lock class ("SWOB"); writers use the same with OutboxTableRepository. */
export const GATEWAY_OUTBOX_LOCK = 0x53574f42;

@Injectable()
export class OutboxRelay extends TableOutboxRelay {
  constructor(@Inject(RUNTIME) runtime: ServiceRuntime) {
    super(runtime, {
      label: 'outbox relay',
      events: [EVENTS.connectionConfigChanged, EVENTS.connectionStatus, EVENTS.applicationGrantChanged, EVENTS.webhookEndpointDisabled],
      lockKey: GATEWAY_OUTBOX_LOCK,
      batchSize: 100,
      idlePollMs: 500,
    });
  }
}
