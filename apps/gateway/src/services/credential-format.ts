/**
 * Shapes of the credentials the gateway issues, and how they are stored and compared.
 *
 *   <prefix><lookup id: 12 base62><secret: 40 base62>      e.g. sk_sandbox_4f9Q…, pt_…, ct_…, op_…, cs_…
 *
 * The lookup id is public (it is the display prefix an operator sees in listings) and finds the
 * row; the whole token is hashed with SHA-256 and compared with `timingSafeEqual`, so neither the
 * lookup nor the comparison leaks how much of a secret matched. 40 base62 chars are ~238 bits of
 * randomness: a fast hash is the right tool for random tokens (slow KDFs are for human passwords),
 * and it keeps authentication to one indexed point lookup per request.
 */
import { createHash, randomInt, timingSafeEqual } from 'node:crypto';

export const CREDENTIAL_PREFIXES = {
  sandboxSecret: 'sk_sandbox_',
  prodSecret: 'sk_prod_',
  consumerKey: 'pt_',
  connectionToken: 'ct_',
  /** An operator credential (operator CLI `operator:create`): signs in to the console only, never an API route. */
  operatorKey: 'op_',
  /** A console session (the console's cookie): opened by signing in with an operator credential. */
  consoleSession: 'cs_',
} as const;
export type CredentialKind = keyof typeof CREDENTIAL_PREFIXES;

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const LOOKUP_LENGTH = 12;
const SECRET_LENGTH = 40;
const BODY = new RegExp(`^[0-9A-Za-z]{${LOOKUP_LENGTH + SECRET_LENGTH}}$`);

function randomBase62(length: number): string {
  let out = '';
  for (let i = 0; i < length; i++) out += ALPHABET[randomInt(ALPHABET.length)];
  return out;
}

export interface IssuedCredential {
  /** The whole token: shown once, never stored. */
  token: string;
  lookupId: string;
  /** What operators see in listings, e.g. `pt_4f9Qx2…`. */
  displayPrefix: string;
  hash: Buffer;
}

export function issueCredential(kind: CredentialKind): IssuedCredential {
  const prefix = CREDENTIAL_PREFIXES[kind];
  const lookupId = randomBase62(LOOKUP_LENGTH);
  const token = `${prefix}${lookupId}${randomBase62(SECRET_LENGTH)}`;
  return { token, lookupId, displayPrefix: `${prefix}${lookupId}`, hash: hashCredential(token) };
}

export function hashCredential(token: string): Buffer {
  return createHash('sha256').update(token, 'utf8').digest();
}

export interface ParsedCredential {
  kind: CredentialKind;
  lookupId: string;
  token: string;
}

/** Recognises a token's kind by prefix and shape; anything else is `undefined` (→ 401). */
export function parseCredential(token: string | undefined): ParsedCredential | undefined {
  if (!token || token.length > 128) return undefined;
  for (const [kind, prefix] of Object.entries(CREDENTIAL_PREFIXES) as [CredentialKind, string][]) {
    if (token.startsWith(prefix)) {
      const body = token.slice(prefix.length);
      if (!BODY.test(body)) return undefined;
      return { kind, lookupId: body.slice(0, LOOKUP_LENGTH), token };
    }
  }
  return undefined;
}

/** Constant-time comparison of a presented token with a stored hash. */
export function credentialMatches(token: string, storedHash: Buffer): boolean {
  const presented = hashCredential(token);
  return storedHash.length === presented.length && timingSafeEqual(presented, storedHash);
}

/** `Authorization: Bearer <token>` → token; case-insensitive scheme, exactly one space-separated token. */
export function bearerToken(header: unknown): string | undefined {
  if (typeof header !== 'string') return undefined;
  const match = /^Bearer ([^\s]+)$/i.exec(header.trim());
  return match?.[1];
}
