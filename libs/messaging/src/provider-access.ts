/**
 * The schemas of `RPCS.gateway.providerAccess` (subjects.ts) and the seal of its reply: collectors
 * obtain a connection's provider credentials from the gateway (the only service holding
 * `SWITCHYARD_MASTER_KEY`) without the bus ever carrying them in clear (decision 0024).
 *
 * The exchange: the collector makes a fresh X25519 key pair per request (`providerAccessRequest`)
 * and sends the public half as `recipientKey`; the gateway makes its own ephemeral pair, derives an
 * AES-256-GCM key with HKDF-SHA256 from the X25519 shared secret (salt: both public keys; info: the
 * protocol name), and seals the credentials' JSON with the connection id and provider as associated
 * data (`sealProviderCredentials`). Only the holder of the request's private key can open the reply
 * (`open`); an eavesdropper on the subject and the `_INBOX` sees two public keys and ciphertext.
 * A reply moved to another connection or provider, or altered, does not open.
 *
 * What the seal does not do: an attacker allowed to *publish* on the subject gets credentials
 * sealed to its own key. Who may publish (the sync-orchestrator) and who may subscribe (the
 * gateway) is NATS authorization's job (deploy/nats/nats-server.conf; docs/deploy.md, "NATS users").
 *
 * Error codes: `not_found` (no such connection), `provider_config_invalid` (no stored credentials,
 * or stored ones that do not fit the provider), `service_unavailable` (gateway not migrated yet),
 * plus the bus's own `invalid_request` / `internal_error`.
 */
import { createCipheriv, createDecipheriv, createHash, createPrivateKey, createPublicKey, diffieHellman, generateKeyPairSync, hkdfSync, randomBytes, type KeyObject } from 'node:crypto';
import { providerAccessV1, type ProviderAccessReplyV1, type ProviderAccessRequestV1, type ProviderAccessV1, type SealedCredentialsV1 } from './schemas/provider-credentials.v1.js';

export * from './schemas/provider-credentials.v1.js';

const ALG = 'X25519-HKDF-SHA256-A256GCM' as const;
const INFO = Buffer.from('switchyard gateway.connection.provider-access v1');

/** Raw 32-byte X25519 public key ↔ KeyObject (through JWK: node has no raw import for OKP keys). */
const rawPublic = (key: KeyObject): string => {
  const x = key.export({ format: 'jwk' }).x;
  if (!x) throw new Error('not an X25519 public key');
  return x;
};
const publicFromRaw = (x: string): KeyObject => createPublicKey({ key: { kty: 'OKP', crv: 'X25519', x }, format: 'jwk' });

function aesKey(privateKey: KeyObject, peer: KeyObject, senderKey: string, recipientKey: string): Buffer {
  const shared = diffieHellman({ privateKey, publicKey: peer });
  const salt = Buffer.concat([Buffer.from(senderKey, 'base64url'), Buffer.from(recipientKey, 'base64url')]);
  return Buffer.from(hkdfSync('sha256', shared, salt, INFO, 32));
}

const associatedData = (connectionId: string, provider: string) => Buffer.from(`${connectionId}\n${provider}`);

/** Gateway side: seal `credentials` (any JSON) to the request's `recipientKey` for this connection and provider. */
export function sealProviderCredentials(credentials: unknown, recipientKey: string, connectionId: string, provider: string): SealedCredentialsV1 {
  const recipient = publicFromRaw(recipientKey);
  const ephemeral = generateKeyPairSync('x25519');
  const ephemeralKey = rawPublic(ephemeral.publicKey);
  const nonce = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', aesKey(ephemeral.privateKey, recipient, ephemeralKey, recipientKey), nonce);
  cipher.setAAD(associatedData(connectionId, provider));
  const ciphertext = Buffer.concat([cipher.update(JSON.stringify(credentials), 'utf8'), cipher.final()]);
  return { alg: ALG, ephemeralKey, nonce: nonce.toString('base64url'), ciphertext: ciphertext.toString('base64url'), tag: cipher.getAuthTag().toString('base64url') };
}

export class SealedCredentialsError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SealedCredentialsError';
  }
}

/**
 * Opens a seal made for `recipientKey` with `privateKey` (its JSON text), or throws
 * SealedCredentialsError. Only the private half of `recipientKey` opens it: a third party holding
 * both public keys (the request's and the reply's ephemeral one, both on the wire) and any private
 * key of its own does not (apps/gateway/test/provider-credentials.int-spec.ts).
 */
export function openSealedCredentials(sealed: SealedCredentialsV1, privateKey: KeyObject, recipientKey: string, connectionId: string, provider: string): string {
  const { ephemeralKey, nonce, ciphertext, tag } = sealed;
  try {
    const decipher = createDecipheriv('aes-256-gcm', aesKey(privateKey, publicFromRaw(ephemeralKey), ephemeralKey, recipientKey), Buffer.from(nonce, 'base64url'));
    decipher.setAAD(associatedData(connectionId, provider));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(ciphertext, 'base64url')), decipher.final()]).toString('utf8');
  } catch {
    throw new SealedCredentialsError('the sealed credentials do not open with this request’s key');
  }
}

/** Collector side: one request's key pair. The private key stays in this object and is used once. */
export interface ProviderAccessRequest {
  readonly request: ProviderAccessRequestV1;
  /** Opens the gateway's reply to this request (SealedCredentialsError if it does not open or does not fit the provider). */
  open(reply: ProviderAccessReplyV1): ProviderAccessV1;
}

/** The `rejectedTokenHash` of an access token: SHA-256, base64url (never the token itself on the bus). */
export function accessTokenHash(accessToken: string): string {
  return createHash('sha256').update(accessToken, 'utf8').digest('base64url');
}

/** `rejectedToken`: the access token the provider refused (401), so the gateway refreshes the grant (see the request schema). */
export function providerAccessRequest(connectionId: string, rejectedToken?: string): ProviderAccessRequest {
  const pair = generateKeyPairSync('x25519');
  const recipientKey = rawPublic(pair.publicKey);
  const privateDer = pair.privateKey.export({ format: 'der', type: 'pkcs8' });
  return {
    request: { connectionId, recipientKey, ...(rejectedToken === undefined ? {} : { rejectedTokenHash: accessTokenHash(rejectedToken) }) },
    open(reply) {
      if (reply.connectionId !== connectionId) throw new SealedCredentialsError('the reply is for another connection');
      const privateKey = createPrivateKey({ key: privateDer, format: 'der', type: 'pkcs8' });
      const plain = openSealedCredentials(reply.sealedCredentials, privateKey, recipientKey, reply.connectionId, reply.provider);
      const { environment, status, revision, provider, refreshable } = reply;
      const opened = providerAccessV1.safeParse({ connectionId, environment, status, revision, refreshable, provider, credentials: JSON.parse(plain) as unknown });
      if (!opened.success) throw new SealedCredentialsError(`the opened credentials do not fit ${reply.provider}`);
      return opened.data;
    },
  };
}
