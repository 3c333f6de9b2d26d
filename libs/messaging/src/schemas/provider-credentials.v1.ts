/**
 * `gateway.connection.provider-access` v1: a collector (sync-orchestrator, telemetry-ingest) asks
 * the gateway, which owns connections and keeps their provider credentials sealed, for one
 * connection's provider, status and decrypted credentials.
 *
 * Invariant: the credential shapes here are exactly `ProviderCredentials` of libs/providers (the
 * orchestrator's adapter factory assigns one to the other, so a drift fails its typecheck), and
 * the reply is a union discriminated by `provider`, so a Samsara connection can only ever carry
 * Samsara credentials. Unknown keys are stripped, never forwarded. This reply carries secrets:
 * never log it (see docs/deploy.md, "Provider credentials on the bus").
 */
import { z } from 'zod';
import { providerV1 } from './connection-config.v1.js';

export const samsaraCredentialsV1 = z.object({ apiToken: z.string().min(1) });
/** An API key, or an OAuth access token from a connect session (the refresh token stays sealed beside it). */
export const motiveCredentialsV1 = z.union([z.object({ apiKey: z.string().min(1) }), z.object({ accessToken: z.string().min(1) })]);
export const geotabCredentialsV1 = z.object({ database: z.string().min(1), userName: z.string().min(1), password: z.string().min(1) });

/** The credential schema of each provider (the gateway validates what it opened against it). */
export const PROVIDER_CREDENTIAL_SCHEMAS = {
  samsara: samsaraCredentialsV1,
  motive: motiveCredentialsV1,
  geotab: geotabCredentialsV1,
} as const satisfies Record<z.output<typeof providerV1>, z.ZodType>;

export const providerAccessRequestV1 = z.object({ connectionId: z.uuid() }).strict();

const accessCommon = {
  connectionId: z.uuid(),
  environment: z.enum(['sandbox', 'production']),
  status: z.enum(['active', 'paused', 'disconnected']),
  /** The connection's configuration revision when the credentials were read (cache key of collectors). */
  revision: z.number().int().positive(),
};

export const providerAccessReplyV1 = z.discriminatedUnion('provider', [
  z.object({ ...accessCommon, provider: z.literal('samsara'), credentials: samsaraCredentialsV1 }),
  z.object({ ...accessCommon, provider: z.literal('motive'), credentials: motiveCredentialsV1 }),
  z.object({ ...accessCommon, provider: z.literal('geotab'), credentials: geotabCredentialsV1 }),
]);

export type ProviderAccessRequestV1 = z.output<typeof providerAccessRequestV1>;
export type ProviderAccessReplyV1 = z.output<typeof providerAccessReplyV1>;
