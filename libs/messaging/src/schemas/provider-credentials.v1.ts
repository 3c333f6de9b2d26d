/**
 * `gateway.connection.provider-access` v1: a collector (sync-orchestrator, telemetry-ingest) asks
 * the gateway, which owns connections and keeps their provider credentials sealed, for one
 * connection's provider, status and credentials — sealed to the collector's ephemeral key, so the
 * bus never carries them in clear (decision 0024; docs/deploy.md, "Provider credentials on the bus").
 *
 * Invariant: the credential shapes here are exactly `ProviderCredentials` of libs/providers (the
 * orchestrator's adapter factory assigns one to the other, so a drift fails its typecheck), and
 * the opened access is a union discriminated by `provider`, so a Samsara connection can only ever
 * carry Samsara credentials. Unknown keys are stripped, never forwarded. The opened credentials are
 * secrets: never log them.
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

/** An unpadded base64url string of exactly `bytes` bytes (or at least `min` bytes). */
const b64url = (bytes: { exact?: number; min?: number }) =>
  z
    .string()
    .regex(/^[A-Za-z0-9_-]+$/)
    .refine((v) => {
      const length = Buffer.from(v, 'base64url').length;
      return bytes.exact !== undefined ? length === bytes.exact : length >= (bytes.min ?? 0);
    }, 'wrong length');

/**
 * The request names the connection and the collector's ephemeral X25519 public key (raw 32 bytes,
 * base64url): the gateway seals the credentials to it, so only that request's holder of the
 * private key can open them (provider-access.ts).
 */
export const providerAccessRequestV1 = z
  .object({
    connectionId: z.uuid(),
    recipientKey: b64url({ exact: 32 }),
    /**
     * SHA-256 (base64url) of the access token the provider just refused (401): the gateway refreshes
     * the connection's OAuth grant if that token is still the stored one, and answers the current
     * credentials otherwise (another collector refreshed first). Absent on an ordinary request.
     * A digest of a high-entropy token, so the bus learns nothing usable.
     */
    rejectedTokenHash: b64url({ exact: 32 }).optional(),
  })
  .strict();

const accessCommon = {
  connectionId: z.uuid(),
  environment: z.enum(['sandbox', 'production']),
  status: z.enum(['active', 'paused', 'disconnected']),
  /** The connection's configuration revision when the credentials were read (cache key of collectors). */
  revision: z.number().int().positive(),
  /**
   * Whether the credentials are an OAuth grant the gateway can refresh (a refresh token and the
   * provider's OAuth client are configured): a collector that gets a 401 asks again with
   * `rejectedTokenHash`. Absent from an older gateway's reply: false.
   */
  refreshable: z.boolean().default(false),
};

/**
 * Credentials sealed to the request's `recipientKey`: the gateway's ephemeral X25519 public key,
 * the AES-256-GCM nonce, ciphertext and tag (all base64url). The key is HKDF-SHA256 of the X25519
 * shared secret; the associated data binds connection id and provider (provider-access.ts).
 */
export const sealedCredentialsV1 = z
  .object({
    alg: z.literal('X25519-HKDF-SHA256-A256GCM'),
    ephemeralKey: b64url({ exact: 32 }),
    nonce: b64url({ exact: 12 }),
    ciphertext: b64url({ min: 1 }),
    tag: b64url({ exact: 16 }),
  })
  .strict();

/** What travels on the bus: no credential in clear. */
export const providerAccessReplyV1 = z.object({ ...accessCommon, provider: providerV1, sealedCredentials: sealedCredentialsV1 }).strict();

/** The reply once opened by the requesting collector (never on the bus): the provider's own credential shape. */
export const providerAccessV1 = z.discriminatedUnion('provider', [
  z.object({ ...accessCommon, provider: z.literal('samsara'), credentials: samsaraCredentialsV1 }),
  z.object({ ...accessCommon, provider: z.literal('motive'), credentials: motiveCredentialsV1 }),
  z.object({ ...accessCommon, provider: z.literal('geotab'), credentials: geotabCredentialsV1 }),
]);

export type ProviderAccessRequestV1 = z.output<typeof providerAccessRequestV1>;
export type ProviderAccessReplyV1 = z.output<typeof providerAccessReplyV1>;
export type SealedCredentialsV1 = z.output<typeof sealedCredentialsV1>;
export type ProviderAccessV1 = z.output<typeof providerAccessV1>;
