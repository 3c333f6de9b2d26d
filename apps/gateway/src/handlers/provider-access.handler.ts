/**
 * Serves `gateway.connection.provider-access`: a collector names a connection and its ephemeral
 * X25519 public key and gets back the connection's provider, environment, status, configuration
 * revision and the provider credentials — opened from the at-rest seal (services/secret-box.ts,
 * the connection id as associated data), validated against that provider's credential shape, and
 * sealed again to the collector's key (libs/messaging provider-access.ts, decision 0024) so the
 * bus never carries them in clear.
 *
 * OAuth grants (decision 0027): `refreshable` says the stored credentials carry a refresh token and
 * the provider's OAuth client is configured. Such a grant is refreshed first (services/oauth-refresh.ts)
 * when the request's `rejectedTokenHash` is the hash of the stored access token or the stored expiry
 * is near, and the reply carries the credentials the row holds afterwards. The refresh token and
 * the expiry never leave the gateway: the provider's credential schema strips them.
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
 * logged once without the sealed text. A refresh asked for by `rejectedTokenHash` that the provider
 * refuses is `provider_auth_required` (the customer must reconnect); one it does not answer is
 * `provider_unavailable`.
 */
import { Controller, Inject } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { PROVIDER_CREDENTIAL_SCHEMAS, RPCS, RpcError, sealProviderCredentials, type ProviderAccessReplyV1, type ProviderAccessRequestV1 } from '@switchyard/messaging';
import { RUNTIME, type ServiceRuntime } from '@switchyard/service-kit';
import type { ConnectionConfig, Provider } from '@switchyard/domain';
import { GATEWAY_SETTINGS, type GatewaySettings } from '../config.js';
import { Connection } from '../db/entities/index.js';
import { credentialRecord, OAuthRefresh, refreshableGrant, refreshReason } from '../services/oauth-refresh.js';
import { SecretBox } from '../services/secret-box.js';

interface Stored {
  config: ConnectionConfig;
  provider: Provider;
  revision: number;
  seal: string;
  /** The opened JSON as stored (the provider's schema validates it). */
  opened: unknown;
}

@Controller()
export class ProviderAccessHandler {
  private readonly secrets: SecretBox;
  private readonly refresher: OAuthRefresh;

  constructor(
    @Inject(RUNTIME) private readonly runtime: ServiceRuntime,
    @Inject(GATEWAY_SETTINGS) private readonly settings: GatewaySettings,
  ) {
    this.secrets = new SecretBox(settings.masterKey);
    this.refresher = new OAuthRefresh(runtime, this.secrets);
  }

  @MessagePattern(RPCS.gateway.providerAccess.subject)
  async access(@Payload() { connectionId, recipientKey, rejectedTokenHash }: ProviderAccessRequestV1): Promise<ProviderAccessReplyV1> {
    let stored = await this.load(connectionId);
    const before = credentialRecord(stored.opened);
    const grant = refreshableGrant(stored.provider, before, this.settings);
    const reason = grant && refreshReason(grant.provider, before, rejectedTokenHash, Date.now());
    if (grant && reason) {
      // The credentials to answer are the row's afterwards: refreshed, refreshed by another process, or a reconnect's.
      await this.refresher.refresh(connectionId, grant, stored.seal, reason);
      stored = await this.load(connectionId);
    }
    const { config, provider } = stored;
    const schema = PROVIDER_CREDENTIAL_SCHEMAS[provider];
    if (!schema) throw new RpcError('provider_config_invalid', 'unknown provider');
    const parsed = schema.safeParse(stored.opened);
    if (!parsed.success) {
      // Paths and zod's messages only (they never quote the input value).
      const problems = parsed.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ');
      throw new RpcError('provider_config_invalid', `stored credentials do not fit ${provider}: ${problems}`.slice(0, 500));
    }
    const sealedCredentials = sealProviderCredentials(parsed.data, recipientKey, connectionId, provider);
    const refreshable = refreshableGrant(provider, credentialRecord(stored.opened), this.settings) !== undefined;
    return { connectionId, environment: config.environment, status: config.status, revision: stored.revision, refreshable, provider, sealedCredentials };
  }

  /** The connection's row with its credentials opened (typed errors for a missing row, missing credentials or a seal that does not open). */
  private async load(connectionId: string): Promise<Stored> {
    const row = await this.runtime.orm.em.fork().findOne(Connection, { id: connectionId });
    if (!row) throw new RpcError('not_found', 'no such connection');
    if (!row.providerCredentials) throw new RpcError('provider_config_invalid', 'the connection has no provider credentials');
    let opened: unknown;
    try {
      opened = JSON.parse(this.secrets.open(row.providerCredentials, connectionId));
    } catch (error) {
      // The crypto error says only "unable to authenticate data"; neither the seal nor a key is logged.
      this.runtime.logger.error({ connectionId, errName: error instanceof Error ? error.name : 'unknown' }, 'provider credentials could not be opened');
      throw new RpcError('internal_error');
    }
    return { config: row.config as ConnectionConfig, provider: row.provider as Provider, revision: row.configRevision, seal: row.providerCredentials, opened };
  }
}
