/**
 * Who may use the operator console (decision 0045): sign-in with an operator credential (`op_…`,
 * issued by the operator CLI), sessions, the session cookie and the CSRF tokens.
 * - Sign-in accepts an operator credential only: a consumer key or application secret is refused
 *   exactly like a wrong credential. The token is found by its public lookup id and compared with
 *   its stored SHA-256 in constant time (services/credential-format.ts), never logged.
 * - A session token has the credentials' shape (`cs_…`): the cookie carries it, the database only
 *   its hash; it lasts SESSION_TTL_MS from sign-in and ends with its operator credential.
 * - Cookie: HttpOnly, SameSite=Strict, Path=/console, Secure outside the sandbox (then also the
 *   `__Host-` name prefix, which browsers accept only on Secure host-only cookies).
 * - CSRF: a state-changing form carries HMAC-SHA256(session token, label), compared in constant time
 *   before anything else runs; the sign-in form carries a double-submit token (its own short-lived cookie).
 */
import { createHmac, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { RUNTIME, type ServiceRuntime } from '@switchyard/service-kit';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ConsoleRepository } from '../db/repositories/console.repository.js';
import { credentialMatches, issueCredential, parseCredential } from '../services/credential-format.js';

/** Sessions end 8 hours after sign-in (one working shift; no sliding renewal). */
export const SESSION_TTL_MS = 8 * 3_600_000;
/** How long a sign-in form may be submitted after it was shown. */
const SIGN_IN_TTL_S = 600;
const CSRF_LABEL = 'switchyard-console-csrf-v1';
const SESSION_COOKIE = 'switchyard-console';
const SIGN_IN_COOKIE = 'switchyard-console-signin';

export interface ConsoleOperator {
  sessionId: string;
  operatorId: string;
  operatorName: string;
  /** The CSRF token every form of this session carries. */
  csrf: string;
}

/** Constant-time equality of two strings (false when either is missing or the lengths differ). */
function sameText(a: string | undefined, b: string | undefined): boolean {
  if (a === undefined || b === undefined) return false;
  const [x, y] = [Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8')];
  return x.length === y.length && timingSafeEqual(x, y);
}

function cookies(req: FastifyRequest): Map<string, string> {
  const jar = new Map<string, string>();
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const at = part.indexOf('=');
    if (at > 0) jar.set(part.slice(0, at).trim(), part.slice(at + 1).trim());
  }
  return jar;
}

/**
 * A console cookie's Set-Cookie value: HttpOnly and SameSite=Strict always; Secure outside the
 * sandbox, where the name carries `__Host-` and so must have Path=/ (browsers enforce both); the
 * sandbox's are scoped to the console's own path.
 */
export function consoleCookie(name: string, value: string, maxAgeSeconds: number, secure: boolean): string {
  return `${secure ? '__Host-' : ''}${name}=${value}; Path=${secure ? '/' : '/console'}; Max-Age=${maxAgeSeconds}; HttpOnly; SameSite=Strict${secure ? '; Secure' : ''}`;
}

@Injectable()
export class ConsoleAuth {
  /** Outside the sandbox the cookies are Secure (and `__Host-` prefixed); the sandbox serves plain HTTP on loopback. */
  readonly secure: boolean;

  constructor(
    private readonly repo: ConsoleRepository,
    @Inject(RUNTIME) runtime: ServiceRuntime,
  ) {
    this.secure = runtime.environment !== 'sandbox';
  }

  /** The cookies' names as the browser sends them back (consoleCookie adds the prefix). */
  private get sessionCookie(): string {
    return `${this.secure ? '__Host-' : ''}${SESSION_COOKIE}`;
  }

  private get signInCookie(): string {
    return `${this.secure ? '__Host-' : ''}${SIGN_IN_COOKIE}`;
  }

  private cookie(name: string, value: string, maxAgeSeconds: number): string {
    return consoleCookie(name, value, maxAgeSeconds, this.secure);
  }

  /** The operator of the request's session cookie, or undefined (no cookie, unknown, expired, revoked). */
  async operator(req: FastifyRequest): Promise<ConsoleOperator | undefined> {
    const token = cookies(req).get(this.sessionCookie);
    const parsed = parseCredential(token);
    if (!parsed || parsed.kind !== 'consoleSession') return undefined;
    const row = await this.repo.session(parsed.lookupId);
    if (!row || !credentialMatches(parsed.token, row.secret_hash) || row.expired || row.operator_revoked) return undefined;
    return { sessionId: row.id, operatorId: row.operator_id, operatorName: row.operator_name, csrf: this.csrfOf(parsed.token) };
  }

  private csrfOf(sessionToken: string): string {
    return createHmac('sha256', sessionToken).update(CSRF_LABEL).digest('base64url');
  }

  /** Whether a form's CSRF token is this session's (constant time). */
  csrfValid(operator: ConsoleOperator, presented: string | undefined): boolean {
    return sameText(operator.csrf, presented);
  }

  /** A fresh sign-in form token, set as its own cookie: the form must send back the same value. */
  issueSignInToken(reply: FastifyReply): string {
    const token = randomBytes(32).toString('base64url');
    void reply.header('set-cookie', this.cookie(SIGN_IN_COOKIE, token, SIGN_IN_TTL_S));
    return token;
  }

  /**
   * Signs in: the form's double-submit token must match its cookie (else `csrf_invalid`), and the
   * credential must be an unrevoked operator credential (else `sign_in_refused`, whatever was wrong).
   * On success the session cookie is set and the sign-in cookie cleared.
   */
  async signIn(req: FastifyRequest, reply: FastifyReply, form: { credential?: string; csrf?: string }): Promise<'ok' | 'csrf_invalid' | 'sign_in_refused'> {
    if (!sameText(cookies(req).get(this.signInCookie), form.csrf)) return 'csrf_invalid';
    const parsed = parseCredential(form.credential?.trim());
    const row = parsed?.kind === 'operatorKey' ? await this.repo.operator(parsed.lookupId) : undefined;
    if (!parsed || !row || !credentialMatches(parsed.token, row.secret_hash) || row.revoked) return 'sign_in_refused';
    const session = issueCredential('consoleSession');
    await this.repo.openSession({ id: randomUUID(), lookupId: session.lookupId, secretHash: session.hash, operatorId: row.id, expiresAt: new Date(Date.now() + SESSION_TTL_MS) });
    void reply.header('set-cookie', [this.cookie(SESSION_COOKIE, session.token, SESSION_TTL_MS / 1000), this.cookie(SIGN_IN_COOKIE, '', 0)]);
    return 'ok';
  }

  async signOut(operator: ConsoleOperator, reply: FastifyReply): Promise<void> {
    await this.repo.closeSession(operator.sessionId);
    void reply.header('set-cookie', this.cookie(SESSION_COOKIE, '', 0));
  }
}
