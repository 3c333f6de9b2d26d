/**
 * The schemas of `RPCS.gateway.providerAccess` (subjects.ts): collectors obtain a connection's
 * provider credentials from the gateway (the only service holding `SWITCHYARD_MASTER_KEY`).
 *
 * Trust boundary: the reply carries provider secrets in clear over the internal bus. In production
 * the NATS accounts must let only the gateway subscribe to `gateway.connection.provider-access` and
 * only the sync-orchestrator's and telemetry-ingest's users publish to it (replies come back on
 * their own `_INBOX`), and nobody logs the payload (docs/deploy.md, "Provider credentials on the
 * bus"). Error codes: `not_found` (no such connection), `provider_config_invalid` (no stored
 * credentials, or stored ones that do not fit the provider), `service_unavailable` (gateway not
 * migrated yet), plus the bus's own `invalid_request` / `internal_error`.
 */
export * from './schemas/provider-credentials.v1.js';
