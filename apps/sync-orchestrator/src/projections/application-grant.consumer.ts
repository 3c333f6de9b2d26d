/**
 * Keeps the `application_credential` projection current from the gateway's
 * `events.credentials.application.<id>` snapshots (one durable consumer group for every
 * orchestrator process). Each message is applied in its own transaction and acked only after the
 * commit; an older or repeated (credentialVersion, tokenVersion) pair is a no-op (see the
 * repository), so redelivery and reordering are harmless.
 */
import { Inject, Injectable, type BeforeApplicationShutdown, type OnApplicationBootstrap } from '@nestjs/common';
import { EVENTS, type Subscription } from '@switchyard/messaging';
import { inTransaction } from '@switchyard/persistence';
import { RUNTIME, whenMigrated, type ServiceRuntime } from '@switchyard/service-kit';
import { ApplicationCredentialRepository } from '../db/repositories/application-credential.repository.js';

@Injectable()
export class ApplicationGrantConsumer implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly repository = new ApplicationCredentialRepository();
  private subscription: Subscription | undefined;
  private waiting: Promise<void> | undefined;
  private stopped = false;

  constructor(@Inject(RUNTIME) private readonly runtime: ServiceRuntime) {}

  async onApplicationBootstrap() {
    if (this.runtime.state.migrated) {
      await this.start();
      return;
    }
    // MIGRATE_ON_START=false with migrations pending: start once a release step has applied them.
    this.waiting = whenMigrated(this.runtime)
      .then(async (migrated) => {
        if (migrated && !this.stopped) await this.start();
      })
      .catch((error: unknown) => this.runtime.logger.error({ err: error }, 'application grant consumer did not start'));
  }

  private async start() {
    this.subscription = await this.runtime.bus.consume(
      { durable: `${this.runtime.service}-application-grants`, event: EVENTS.applicationGrantChanged, ackWaitMs: 30_000, maxDeliver: 10, maxAckPending: 64 },
      async ({ payload }) => {
        const applied = await inTransaction(this.runtime.orm, (em) => this.repository.apply(em, payload));
        this.runtime.logger.debug(
          { applicationId: payload.applicationId, credentialVersion: payload.credentialVersion, tokenVersion: payload.tokenVersion, applied },
          'application grant received',
        );
      },
    );
  }

  async beforeApplicationShutdown() {
    this.stopped = true;
    await this.waiting;
    await this.subscription?.drain();
  }
}
