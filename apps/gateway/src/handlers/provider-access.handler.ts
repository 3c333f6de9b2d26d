/**
 * Serves `gateway.connection.provider-access`: a collector names a connection and its ephemeral
 * X25519 public key and gets back the connection's provider, environment, status, configuration
 * revision and the provider credentials — opened from the at-rest seal (services/secret-box.ts,
 * the connection id as associated data), validated against that provider's credential shape, and
 * sealed again to the collector's key (libs/messaging provider-access.ts, decision 0024) so the
 * bus never carries them in clear.
 *
 * Trust boundary (also docs/deploy.md, "Provider credentials on the bus"): an eavesdropper learns
 * nothing, but whoever may publish here gets credentials sealed to its own key, so the NATS
 * authorization restricts the subject: subscribe only for the gateway's user, publish only for the
 * sync-orchestrator's and telemetry-ingest's users. Nothing here logs the request or the reply; an
 * error log names the connection id and the failing step only.
 *
 * Errors: `not_found` for an unknown connection, `provider_config_invalid` for a connection stored
 * without credentials or with credentials that do not fit its provider (the detail names the
 * missing keys, never a value), `service_unavailable` before migrations ran (the bus transport). A seal that cannot be
 * opened (wrong master key, ciphertext moved between rows) is an operator fault: `internal_error`,
 * logged once without the sealed text.
 */
import { Controller, Inject } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { PROVIDER_CREDENTIAL_SCHEMAS, RPCS, RpcError, sealProviderCredentials, type ProviderAccessReplyV1, type ProviderAccessRequestV1 } from '@switchyard/messaging';
import { RUNTIME, type ServiceRuntime } from '@switchyard/service-kit';
import type { ConnectionConfig, Provider } from '@switchyard/domain';
import { GATEWAY_SETTINGS, type GatewaySettings } from '../config.js';
import { Connection } from '../db/entities/index.js';
import { SecretBox } from '../services/secret-box.js';

@Controller()
export class ProviderAccessHandler {
  private readonly secrets: SecretBox;

  constructor(
    @Inject(RUNTIME) private readonly runtime: ServiceRuntime,
    @Inject(GATEWAY_SETTINGS) settings: GatewaySettings,
  ) {
    this.secrets = new SecretBox(settings.masterKey);
  }

  @MessagePattern(RPCS.gateway.providerAccess.subject)
  async access(@Payload() { connectionId, recipientKey }: ProviderAccessRequestV1): Promise<ProviderAccessReplyV1> {
    const row = await this.runtime.orm.em.fork().findOne(Connection, { id: connectionId });
    if (!row) throw new RpcError('not_found', 'no such connection');
    if (!row.providerCredentials) throw new RpcError('provider_config_invalid', 'the connection has no provider credentials');
    const config = row.config as ConnectionConfig;
    const provider = row.provider as Provider;
    let opened: unknown;
    try {
      opened = JSON.parse(this.secrets.open(row.providerCredentials, connectionId));
    } catch (error) {
      // The crypto error says only "unable to authenticate data"; neither the seal nor a key is logged.
      this.runtime.logger.error({ connectionId, errName: error instanceof Error ? error.name : 'unknown' }, 'provider credentials could not be opened');
      throw new RpcError('internal_error');
    }
    const schema = PROVIDER_CREDENTIAL_SCHEMAS[provider];
    if (!schema) throw new RpcError('provider_config_invalid', 'unknown provider');
    const parsed = schema.safeParse(opened);
    if (!parsed.success) {
      // Paths and zod's messages only (they never quote the input value).
      const problems = parsed.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ');
      throw new RpcError('provider_config_invalid', `stored credentials do not fit ${provider}: ${problems}`.slice(0, 500));
    }
    const sealedCredentials = sealProviderCredentials(parsed.data, recipientKey, connectionId, provider);
    return { connectionId, environment: config.environment, status: config.status, revision: row.configRevision, refreshable: false, provider, sealedCredentials };
  }
}
