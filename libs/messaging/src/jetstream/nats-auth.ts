/**
 * How the JetStream bus proves who it is to a NATS server that requires it: a credentials file
 * (JWT + NKey seed), user and password, or a token, with optional TLS and inbox prefix, turned
 * into the v3 client's connection options. The v3 client ignores `user:password@` in a server URL,
 * so credentials written there are taken out of the URL and sent as options (explicit ones win).
 * Invariant: the servers handed to the client, and every server named in a log line or error,
 * carry no credentials (`serverLabel`); secret values are never part of any message built here.
 */
import { readFileSync } from 'node:fs';
import { credsAuthenticator, type NodeConnectionOptions } from '@nats-io/transport-node';

export interface NatsAuth {
  /** A `.creds` file (JWT and NKey seed), as `nsc` writes it. */
  credsFile?: string;
  user?: string;
  password?: string;
  token?: string;
  /** TLS: a CA to trust (self-signed servers), and a client certificate and key for mutual TLS. */
  tls?: { caFile?: string; certFile?: string; keyFile?: string };
  /** Replaces `_INBOX` for request replies, for accounts whose permissions allow only a prefix. */
  inboxPrefix?: string;
}

const USERINFO = /^([a-z][a-z0-9+.-]*:\/\/)?[^@/]*@/i;

/** `nats://u:p@host:4222` → `nats://host:4222`: what may be logged and what the client dials. */
export function serverLabel(server: string): string {
  return server.replace(USERINFO, '$1');
}

/** `user:password@` → user/password, `token@` → token (the Go client's convention); else undefined. */
export function credentialsInUrl(server: string): Pick<NatsAuth, 'user' | 'password' | 'token'> | undefined {
  if (!USERINFO.test(server)) return undefined;
  let url: URL;
  try {
    url = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(server) ? server : `nats://${server}`);
  } catch {
    return undefined;
  }
  const user = decodeURIComponent(url.username);
  const password = decodeURIComponent(url.password);
  if (!user) return undefined;
  return password ? { user, password } : { token: user };
}

export type NatsClientAuthOptions = Pick<NodeConnectionOptions, 'authenticator' | 'user' | 'pass' | 'token' | 'tls' | 'inboxPrefix'> & { servers: string[] };

/**
 * The client options for `servers` and `auth`. Reads the credentials file now, so a missing file
 * fails at start with its path (the file's content never reaches an error message).
 */
export function natsClientAuthOptions(servers: readonly string[], auth: NatsAuth = {}): NatsClientAuthOptions {
  const fromUrl = servers.map(credentialsInUrl).find((c) => c !== undefined);
  const explicit = auth.user !== undefined || auth.token !== undefined || auth.credsFile !== undefined;
  const secrets = explicit ? auth : { ...auth, ...fromUrl };
  const options: NatsClientAuthOptions = { servers: servers.map(serverLabel) };
  if (secrets.credsFile) {
    let creds: Uint8Array;
    try {
      creds = readFileSync(secrets.credsFile);
    } catch (error) {
      throw new Error(`cannot read the NATS credentials file ${secrets.credsFile}: ${(error as NodeJS.ErrnoException).code ?? 'error'}`);
    }
    options.authenticator = credsAuthenticator(creds);
  }
  if (secrets.user) {
    options.user = secrets.user;
    options.pass = secrets.password;
  }
  if (secrets.token) options.token = secrets.token;
  const tls = auth.tls;
  if (tls && (tls.caFile || tls.certFile || tls.keyFile)) {
    options.tls = { ...(tls.caFile && { caFile: tls.caFile }), ...(tls.certFile && { certFile: tls.certFile }), ...(tls.keyFile && { keyFile: tls.keyFile }) };
  }
  if (auth.inboxPrefix) options.inboxPrefix = auth.inboxPrefix;
  return options;
}
