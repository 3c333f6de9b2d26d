/**
 * The request/reply endpoint collectors use to obtain a connection's provider credentials from the
 * gateway (the only service holding `SWITCHYARD_MASTER_KEY`). Declared beside subjects.ts with its
 * schemas so requester and responder parse with the same entry.
 *
 * Trust boundary: the reply carries provider secrets in clear over the internal bus. In production
 * the NATS accounts must let only the gateway subscribe to `gateway.connection.provider-access` and
 * only the sync-orchestrator's and telemetry-ingest's users publish to it (replies come back on
 * their own `_INBOX`), and nobody logs the payload (docs/deploy.md, "Provider credentials on the
 * bus"). Error codes: `not_found` (no such connection), `provider_config_invalid` (no stored
 * credentials, or stored ones that do not fit the provider), `service_unavailable` (gateway not
 * migrated yet), plus the bus's own `invalid_request` / `internal_error`.
 */
import type { RpcDefinition } from './port.js';
import { providerAccessReplyV1, providerAccessRequestV1 } from './schemas/provider-credentials.v1.js';

export const PROVIDER_ACCESS_RPC = {
  subject: 'gateway.connection.provider-access',
  request: providerAccessRequestV1,
  response: providerAccessReplyV1,
} as const satisfies RpcDefinition<typeof providerAccessRequestV1, typeof providerAccessReplyV1>;

export * from './schemas/provider-credentials.v1.js';
