/**
 * The delivery role's durable consumers of the facts webhooks tell (decision 0042): fault
 * transitions (FAULTS, `fleet.faults.*.*`), sync outcomes and connection status changes (EVENTS).
 * Each message becomes one event of the webhook log — its CloudEvents body rendered once, validated
 * by the body schema of its type (libs/messaging webhook.v1.ts) — and one pending message per
 * endpoint that receives it, in one statement; the message is acked after that commit and the
 * local delivery loop is woken, so the first attempt follows the commit at once.
 * Invariants: the event id is the fact's stable id (the transition id; the outcome's and the status
 * change's name-based ids), unique in the log, so a redelivered message records and fans out
 * nothing; each durable has one message in flight (CONSUMERS: maxAckPending 1), so events enter the
 * log in stream order — per vehicle the order fault-feed committed them (a `fault.cleared` after its
 * `fault.opened`). A database error throws: the message is redelivered (the transport holds it
 * through an outage).
 */
import { Controller, Inject } from '@nestjs/common';
import { EventPattern, Payload } from '@nestjs/microservices';
import {
  CONSUMERS,
  WEBHOOK_BODY_SCHEMAS,
  webhookEventSource,
  type ConnectionStatusChangedV1,
  type Consumes,
  type FaultTransitionV1,
  type SyncOutcomeV1,
  type WebhookEventType,
} from '@switchyard/messaging';
import { RUNTIME, type ServiceRuntime } from '@switchyard/service-kit';
import { WebhookDeliveryRepository, type WebhookLogEvent } from '../db/repositories/webhook-delivery.repository.js';
import { WebhookDelivery } from '../services/webhook-delivery.service.js';

interface Fact {
  id: string;
  type: WebhookEventType;
  connectionId: string;
  orderKey: string;
  subject: string;
  time: string;
  data: unknown;
  applicationId?: string;
}

/**
 * The CloudEvents body of a fact, checked against its type's schema (at a stand-in position: the
 * schema wants a decimal), with `sequence` = `mark` for the recording statement to fill in.
 */
function render(fact: Fact, mark: string): string {
  const event = {
    specversion: '1.0',
    id: fact.id,
    source: webhookEventSource(fact.connectionId),
    type: fact.type,
    subject: fact.subject,
    time: fact.time,
    datacontenttype: 'application/json',
    sequence: '1',
    data: fact.data,
  };
  return JSON.stringify({ ...(WEBHOOK_BODY_SCHEMAS[fact.type].parse(event) as object), sequence: mark });
}

const STATUS_EVENT: Record<ConnectionStatusChangedV1['status'], WebhookEventType> = { active: 'connection.resumed', paused: 'connection.paused', disconnected: 'connection.disconnected' };

@Controller()
export class WebhookFanoutHandler {
  private readonly repository = new WebhookDeliveryRepository();

  constructor(
    @Inject(RUNTIME) private readonly runtime: ServiceRuntime,
    private readonly delivery: WebhookDelivery,
  ) {}

  @EventPattern<Consumes<'webhookFaults'>>(CONSUMERS.webhookFaults.durable)
  faults(@Payload() t: FaultTransitionV1): Promise<void> {
    return this.record({
      id: t.transitionId,
      type: t.kind === 'opened' ? 'fault.opened' : 'fault.cleared',
      connectionId: t.connectionId,
      orderKey: t.vehicleId,
      subject: t.vehicleId,
      time: t.observedAt,
      data: {
        id: t.transitionId,
        sequence: t.sequence,
        connection_id: t.connectionId,
        occurrence_id: t.occurrenceId,
        vehicle_id: t.vehicleId,
        kind: t.kind,
        observed_at: t.observedAt,
        bootstrap: t.bootstrap,
        fault_key: t.faultKey,
        code: t.code,
        description: t.description,
        cleared_by: t.clearedBy,
      },
    });
  }

  @EventPattern<Consumes<'webhookSyncOutcomes'>>(CONSUMERS.webhookSyncOutcomes.durable)
  syncs(@Payload() outcome: SyncOutcomeV1): Promise<void> {
    return this.record({
      id: outcome.eventId,
      type: outcome.sync.status === 'completed' ? 'sync.completed' : 'sync.failed',
      connectionId: outcome.connectionId,
      orderKey: outcome.connectionId,
      subject: outcome.sync.id,
      time: outcome.occurredAt,
      data: { connectionId: outcome.connectionId, sync: outcome.sync },
      applicationId: outcome.applicationId,
    });
  }

  @EventPattern<Consumes<'webhookConnectionStatus'>>(CONSUMERS.webhookConnectionStatus.durable)
  connections(@Payload() change: ConnectionStatusChangedV1): Promise<void> {
    return this.record({
      id: change.eventId,
      type: STATUS_EVENT[change.status],
      connectionId: change.connectionId,
      orderKey: change.connectionId,
      subject: change.connectionId,
      time: change.changedAt,
      data: { connectionId: change.connectionId, provider: change.provider, status: change.status, previousStatus: change.previousStatus, changedAt: change.changedAt },
    });
  }

  private async record(fact: Fact): Promise<void> {
    const event: WebhookLogEvent = {
      id: fact.id,
      type: fact.type,
      connectionId: fact.connectionId,
      orderKey: fact.orderKey,
      render: (mark) => render(fact, mark),
      ...(fact.applicationId ? { applicationId: fact.applicationId } : {}),
    };
    // record() is one statement for the event and its messages: atomic without a transaction.
    const endpoints = await this.repository.record(this.runtime.orm.em.fork(), event);
    this.runtime.logger.debug({ eventId: fact.id, type: fact.type, connectionId: fact.connectionId, endpoints }, 'webhook event recorded');
    if (endpoints > 0) this.delivery.wake();
  }
}
