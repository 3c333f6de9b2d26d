/**
 * Keeps the `application_credential` projection current from the gateway's
 * `events.credentials.application.<id>` snapshots (CONSUMERS.applicationGrants, one durable
 * consumer group for every orchestrator process). Each message is applied in its own transaction and acked only after the
 * commit; an older or repeated (credentialVersion, tokenVersion) pair is a no-op (see the
 * repository), so redelivery and reordering are harmless.
 */
import { Controller, Inject } from '@nestjs/common';
import { EventPattern, Payload } from '@nestjs/microservices';
import { CONSUMERS, type Consumes, type ApplicationGrantV1 } from '@switchyard/messaging';
import { inTransaction } from '@switchyard/persistence';
import { RUNTIME, type ServiceRuntime } from '@switchyard/service-kit';
import { ApplicationCredentialRepository } from '../db/repositories/application-credential.repository.js';

@Controller()
export class ApplicationGrantHandler {
  private readonly repository = new ApplicationCredentialRepository();

  constructor(@Inject(RUNTIME) private readonly runtime: ServiceRuntime) {}

  @EventPattern<Consumes<'applicationGrants'>>(CONSUMERS.applicationGrants.durable)
  async apply(@Payload() grant: ApplicationGrantV1): Promise<void> {
    const applied = await inTransaction(this.runtime.orm, (em) => this.repository.apply(em, grant));
    this.runtime.logger.debug({ applicationId: grant.applicationId, credentialVersion: grant.credentialVersion, tokenVersion: grant.tokenVersion, applied }, 'application grant received');
  }
}
