/**
 * The webhook delivery loop of the delivery role (decision 0042; its own process, so delivery scales
 * apart from the HTTP API): claim due messages, attempt each, settle it.
 * - Woken at once by a fan-out committed in this process (`wake`), and every WEBHOOK_POLL_MS for
 *   retries, replays and other processes' fan-outs; at most WEBHOOK_CONCURRENCY attempts at once.
 * - An attempt signs the stored body with every secret that signs now (two during a rotation) and
 *   a fresh timestamp; `webhook-id` is the event id, the same on every attempt.
 * - Outcome: a 2xx delivers (the endpoint stops failing); 410 disables the endpoint at once
 *   (`gone`; the message stays pending for when it is enabled again); anything else is retried after
 *   the schedule's next delay (WEBHOOK_RETRY_SCHEDULE_MS), not sooner than its `Retry-After`, and
 *   fails once the schedule is spent; an endpoint failing for WEBHOOK_DISABLE_AFTER_MS is disabled
 *   (`failing`). Each disable writes `events.webhook.disabled.<applicationId>` to the outbox in
 *   its transaction.
 * - Faults of vehicles the directory's set hides are not sent (`suppressed`); before the set of a
 *   connection has arrived they wait (2 s steps, no attempt counted) up to VISIBILITY_WAIT_MS.
 * - At least once: the lease outlives the attempt's deadline by LEASE_MARGIN_MS (15 s; with a
 *   deadline under that, by the deadline again); a process that
 *   dies mid-attempt leaves its leased messages to another after the lease, and the receiver sees
 *   that attempt again (same webhook-id). Per order key only the first pending message is claimed.
 * - Retention: once an hour, events recorded more than WEBHOOK_RETENTION_MS ago with nothing
 *   pending are deleted with their messages and attempts (the streams keep 30 days too).
 */
import { Inject, Injectable, type BeforeApplicationShutdown, type OnApplicationBootstrap } from '@nestjs/common';
import { nameUuid } from '@switchyard/domain';
import { EVENTS, subjectFor, type WebhookEndpointDisabledV1 } from '@switchyard/messaging';
import { inTransaction } from '@switchyard/persistence';
import { webhookEgressPolicy } from '@switchyard/providers';
import { OutboxTableRepository, RUNTIME, VehicleVisibilityStore, type ServiceRuntime } from '@switchyard/service-kit';
import { GATEWAY_SETTINGS, type GatewaySettings, type WebhookSettings } from '../config.js';
import { WebhookDeliveryRepository, type ClaimedMessage, type MessageOutcome } from '../db/repositories/webhook-delivery.repository.js';
import { GATEWAY_OUTBOX_LOCK } from './outbox-relay.service.js';
import { SecretBox } from './secret-box.js';
import { WebhookSender, type AttemptResult } from './webhook-sender.js';
import { openSecrets, webhookHeaders } from './webhook-signature.js';

/** Past the attempt's deadline before another process may take a leased message (at most the deadline again). */
const LEASE_MARGIN_MS = 15_000;
/** Longest wait a `Retry-After` can impose. */
const RETRY_AFTER_MAX_MS = 86_400_000;
/** How long a fault waits for its connection's first visibility set before it is held hidden. */
const VISIBILITY_WAIT_MS = 10 * 60_000;
const VISIBILITY_STEP_MS = 2_000;
export const WEBHOOK_RETENTION_MS = 30 * 86_400_000;
const PRUNE_EVERY_MS = 3_600_000;

@Injectable()
export class WebhookDelivery implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly repository = new WebhookDeliveryRepository();
  private readonly outbox = new OutboxTableRepository(GATEWAY_OUTBOX_LOCK);
  private readonly visibility = new VehicleVisibilityStore({ lists: false });
  private readonly settings: WebhookSettings;
  private readonly box: SecretBox;
  private readonly sender: WebhookSender;
  private readonly attempts = new Set<Promise<void>>();
  private timer: NodeJS.Timeout | undefined;
  private pumping = false;
  private again = false;
  private stopped = false;
  private lastPrunedAt = 0;

  constructor(
    @Inject(RUNTIME) private readonly runtime: ServiceRuntime,
    @Inject(GATEWAY_SETTINGS) settings: GatewaySettings,
  ) {
    this.settings = settings.webhooks;
    this.box = new SecretBox(settings.masterKey);
    this.sender = new WebhookSender(webhookEgressPolicy(runtime.environment, settings.webhooks.network), settings.webhooks.attemptTimeoutMs);
  }

  onApplicationBootstrap(): void {
    this.schedule(0);
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    // Attempts in flight finish and settle; nothing new is claimed.
    await Promise.allSettled([...this.attempts]);
  }

  /** Claim now (a fan-out just committed in this process). */
  wake(): void {
    if (this.stopped) return;
    if (this.pumping) {
      this.again = true;
      return;
    }
    void this.pump();
  }

  private schedule(delayMs: number): void {
    if (this.stopped) return;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.pump(), delayMs);
    this.timer.unref();
  }

  private async pump(): Promise<void> {
    if (this.pumping || this.stopped) return;
    this.pumping = true;
    try {
      do {
        this.again = false;
        if (!this.runtime.state.migrated) break;
        const room = this.settings.concurrency - this.attempts.size;
        if (room <= 0) break;
        // One statement: atomic on its own, no transaction round trips.
        const claimed = await this.repository.claim(this.runtime.orm.em.fork(), room, this.settings.attemptTimeoutMs + Math.min(LEASE_MARGIN_MS, this.settings.attemptTimeoutMs));
        for (const message of claimed) this.track(this.deliver(message));
        if (claimed.length === room) this.again = true;
      } while (this.again && !this.stopped);
      await this.pruneHourly();
    } catch (error) {
      this.runtime.logger.warn({ err: error }, 'webhook delivery: claiming failed, will retry');
    } finally {
      this.pumping = false;
      this.schedule(this.settings.pollMs);
    }
  }

  private track(attempt: Promise<void>): void {
    this.attempts.add(attempt);
    void attempt.finally(() => {
      this.attempts.delete(attempt);
      this.wake();
    });
  }

  private async deliver(message: ClaimedMessage): Promise<void> {
    try {
      if (message.type.startsWith('fault.')) {
        const held = await this.heldByVisibility(message);
        if (held) return await this.settleWithoutAttempt(message, held);
      }
      const now = new Date();
      const secrets = openSecrets(this.box, message.endpoint_id, message.secrets, now);
      const result = await this.sender.send({ url: message.url, body: message.body, headers: webhookHeaders(secrets, message.event_id, Math.floor(now.getTime() / 1000), message.body) });
      await this.settleAttempt(message, now, new Date(), result);
    } catch (error) {
      // The lease runs out and another claim attempts it again (at least once).
      this.runtime.logger.warn({ err: error, endpointId: message.endpoint_id, eventId: message.event_id }, 'webhook delivery: attempt not settled, the lease will expire');
    }
  }

  /** Why a fault is not sent now: its vehicle is hidden (suppressed), or the set has not arrived yet (wait). */
  private async heldByVisibility(message: ClaimedMessage): Promise<MessageOutcome | undefined> {
    const em = this.runtime.orm.em.fork();
    // The common case in one statement: shown. Not shown: hidden, or the set has not arrived yet.
    const shown = await this.visibility.visible(em, message.connection_id, [{ vehicleId: message.order_key, sourceId: null }]);
    if (shown.has(message.order_key)) return undefined;
    if (await this.visibility.get(em, message.connection_id)) return { state: 'suppressed' };
    if (Date.now() - Date.parse(message.created_at) > VISIBILITY_WAIT_MS) return { state: 'suppressed' };
    return { state: 'pending', nextAttemptAt: new Date(Date.now() + VISIBILITY_STEP_MS) };
  }

  private async settleWithoutAttempt(message: ClaimedMessage, outcome: MessageOutcome): Promise<void> {
    await this.repository.settle(this.runtime.orm.em.fork(), message, outcome, false);
    if (outcome.state === 'suppressed') this.runtime.logger.info({ endpointId: message.endpoint_id, eventId: message.event_id }, 'webhook not sent: the vehicle is hidden from the connection');
  }

  /** `answeredAt`: when the answer (or the failure) came — the schedule's delay and `Retry-After` count from there, as Svix's periods start at the failure. */
  private async settleAttempt(message: ClaimedMessage, startedAt: Date, answeredAt: Date, result: AttemptResult): Promise<void> {
    const log = { endpointId: message.endpoint_id, eventId: message.event_id, type: message.type, attempt: message.attempt_count + 1, status: result.status, error: result.error, latencyMs: result.latencyMs };
    if (result.error === null) {
      await this.repository.delivered(this.runtime.orm.em.fork(), message, { startedAt, ...result });
      this.runtime.logger.debug(log, 'webhook delivered');
      return;
    }
    await inTransaction(this.runtime.orm, async (em) => {
      await this.repository.logAttempt(em, message, { startedAt, ...result });
      if (result.status === 410) {
        // Gone: disabled now; the message waits (pending) for the endpoint to be enabled again.
        await this.repository.settle(em, message, { state: 'pending', nextAttemptAt: startedAt }, true);
        await this.disable(em, message.endpoint_id, 'gone');
        return;
      }
      const schedule = this.settings.retryScheduleMs;
      const delay = schedule[message.round_attempts];
      const outcome: MessageOutcome =
        delay === undefined ? { state: 'failed' } : { state: 'pending', nextAttemptAt: new Date(answeredAt.getTime() + Math.max(delay, Math.min(result.retryAfterMs ?? 0, RETRY_AFTER_MAX_MS))) };
      await this.repository.settle(em, message, outcome, true);
      const failingSince = await this.repository.failed(em, message.endpoint_id, startedAt);
      if (failingSince && startedAt.getTime() - failingSince.getTime() >= this.settings.disableAfterMs) await this.disable(em, message.endpoint_id, 'failing');
    });
    this.runtime.logger.info(log, 'webhook attempt failed');
  }

  /** Disables the endpoint and records `events.webhook.disabled.<applicationId>` (outbox) when this call disabled it. */
  private async disable(em: Parameters<WebhookDeliveryRepository['disable']>[0], endpointId: string, reason: 'gone' | 'failing'): Promise<void> {
    const row = await this.repository.disable(em, endpointId, reason);
    if (!row) return;
    const event: WebhookEndpointDisabledV1 = {
      eventId: nameUuid('webhook-endpoint-disabled', endpointId, row.disabled_at),
      endpointId,
      applicationId: row.application_id,
      origin: new URL(row.url).origin,
      reason,
      failingSince: row.failing_since,
      disabledAt: row.disabled_at,
    };
    await this.outbox.enqueue(em, subjectFor(EVENTS.webhookEndpointDisabled.subject, row.application_id), event.eventId, event);
    this.runtime.logger.warn({ endpointId, applicationId: row.application_id, origin: event.origin, reason }, 'webhook endpoint disabled');
  }

  private async pruneHourly(): Promise<void> {
    if (Date.now() - this.lastPrunedAt < PRUNE_EVERY_MS) return;
    this.lastPrunedAt = Date.now();
    const pruned = await inTransaction(this.runtime.orm, (em) => this.repository.prune(em, new Date(Date.now() - WEBHOOK_RETENTION_MS)));
    if (pruned > 0) this.runtime.logger.info({ pruned }, 'webhook log: events past retention deleted');
  }
}
