/**
 * Publishes the collectors' connection-health observations (`events.connection.health.<id>`,
 * libs/messaging connection-health.ts) for the gateway's connection row (spec 2.8) and the
 * directory's dataset status (per the datasets the job feeds).
 *
 * Delivery choice: published directly after the observation, NOT through a transactional outbox.
 * An observation commits nothing in the orchestrator's schema (the units' own bookkeeping is
 * separate and already durable), so there is no transaction to be atomic with; the msgId
 * `health:<connectionId>:<sequence>` is drawn once per observation from `connection_health_seq`,
 * so the bus's own publish retries are deduplicated by JetStream. A publish lost to a crash loses
 * one observation, and the next job's observation supersedes it — health is "the latest seen",
 * never a ledger. A failed publish is logged and never fails or retries collection.
 *
 * Invariant: observedAt is taken after the sequence, so within one process both increase together.
 */
import { Inject, Injectable } from '@nestjs/common';
import { connectionHealthMsgId, type ConnectionHealthV1, EVENTS, subjectFor } from '@switchyard/messaging';
import { RUNTIME, type ServiceRuntime } from '@switchyard/service-kit';
import { nextHealthSequence } from '../db/repositories/connection-health.repository.js';

export type HealthObservation = Pick<ConnectionHealthV1, 'connectionId' | 'outcome' | 'errorCode' | 'nextRetryAt' | 'datasets'> & { scope?: ConnectionHealthV1['scope'] };

@Injectable()
export class ConnectionHealthPublisher {
  constructor(@Inject(RUNTIME) private readonly runtime: ServiceRuntime) {}

  /** Publishes one observation; returns the event, or undefined when it could not be published. */
  async report(observation: HealthObservation): Promise<ConnectionHealthV1 | undefined> {
    try {
      const sequence = await nextHealthSequence(this.runtime.orm.em.fork());
      const event: ConnectionHealthV1 = {
        connectionId: observation.connectionId,
        observedAt: new Date().toISOString(),
        outcome: observation.outcome,
        errorCode: observation.errorCode,
        scope: observation.scope ?? 'core',
        nextRetryAt: observation.nextRetryAt,
        sequence,
        ...(observation.datasets === undefined ? {} : { datasets: observation.datasets }),
      };
      await this.runtime.bus.publish(EVENTS.connectionHealth, subjectFor(EVENTS.connectionHealth.subject, event.connectionId), event, { msgId: connectionHealthMsgId(event) });
      return event;
    } catch (error) {
      this.runtime.logger.warn({ err: error, connectionId: observation.connectionId, outcome: observation.outcome }, 'connection health not published; the next observation supersedes it');
      return undefined;
    }
  }
}
