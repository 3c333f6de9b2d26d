/**
 * Tells a database that is unreachable (or refusing work for a while) from a statement that is
 * wrong. The first is an infrastructure failure: an API answers 503 `service_unavailable` with
 * `Retry-After`, a consumer holds its message and tries again without spending the message's
 * delivery budget (libs/service-kit transport). The second stays what it was (a bug → 500, a bad
 * message → its own settlement). docs/reliability.md lists what counts and the tests proving it.
 *
 * Counted as unavailable: a socket that cannot be opened or was cut (ECONNREFUSED, ECONNRESET,
 * EPIPE, ETIMEDOUT, EHOSTUNREACH, ENOTFOUND, EAI_AGAIN), `pg`'s own "Connection terminated…" /
 * "timeout exceeded when trying to connect" (the pool's connect deadline), the SQLSTATE classes
 * 08 (connection exception), 53 (insufficient resources: too many connections, out of memory or
 * disk) and 57P01..57P05 (admin/crash shutdown, cannot connect now, idle timeouts) — followed
 * through `cause` and MikroORM's DriverException wrapper (`previous`). A statement that ran into
 * `statement_timeout` or `lock_timeout` is told apart (`isDatabaseDeadline`): the API answers it 503 (a silent or
 * overloaded database), a consumer does not hold a message for it (the batch itself may be what is
 * slow, and holding would stall the consumer forever).
 */

const SOCKET_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN', 'ECONNABORTED']);
const SQLSTATES = new Set(['57P01', '57P02', '57P03', '57P04', '57P05']);
const MESSAGES = [
  /connection terminated/i,
  /timeout exceeded when trying to connect/i,
  /connection (?:is )?(?:closed|ended)/i,
  /Client has encountered a connection error/i,
  /the database system is (?:starting up|shutting down|in recovery mode)/i,
  /terminating connection due to administrator command/i,
];

function codeOf(value: unknown): string | undefined {
  const code = (value as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

function looksUnavailable(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return false;
  const code = codeOf(value);
  if (code !== undefined) {
    if (SOCKET_CODES.has(code) || SQLSTATES.has(code)) return true;
    if (/^(08|53)[0-9A-Z]{3}$/.test(code)) return true;
  }
  const message = (value as { message?: unknown }).message;
  return typeof message === 'string' && MESSAGES.some((pattern) => pattern.test(message));
}

function someInChain(error: unknown, test: (value: object) => boolean): boolean {
  const seen = new Set<unknown>();
  let current: unknown = error;
  while (typeof current === 'object' && current !== null && !seen.has(current)) {
    seen.add(current);
    if (test(current)) return true;
    if (current instanceof AggregateError && current.errors.some((inner) => someInChain(inner, test))) return true;
    current = (current as { previous?: unknown }).previous ?? (current as { cause?: unknown }).cause;
  }
  return false;
}

/** True when `error` (or what it wraps) says PostgreSQL could not be reached or is refusing work for now. */
export function isDatabaseUnavailable(error: unknown): boolean {
  return someInChain(error, looksUnavailable);
}

/** True when a statement was cancelled by `statement_timeout` (SQLSTATE 57014 with PostgreSQL's message). */
export function isStatementTimeout(error: unknown): boolean {
  return someInChain(error, (value) => codeOf(value) === '57014' && /statement timeout/i.test(String((value as { message?: unknown }).message)));
}

/** True when a statement gave up waiting for a lock by `lock_timeout` (SQLSTATE 55P03 with PostgreSQL's message). */
export function isLockTimeout(error: unknown): boolean {
  return someInChain(error, (value) => codeOf(value) === '55P03' && /lock timeout/i.test(String((value as { message?: unknown }).message)));
}

/**
 * A statement that ran past one of the session deadlines (`statement_timeout`, `lock_timeout`): a
 * silent, overloaded or contended database. A request answers it 503 `service_unavailable` with
 * `Retry-After` — in the gateway and in every context's request/reply handler — never 500; a
 * consumer does not hold its message for it (see above).
 */
export function isDatabaseDeadline(error: unknown): boolean {
  return isStatementTimeout(error) || isLockTimeout(error);
}

/** Deadlines of every pooled PostgreSQL connection (docs/configuration.md: DB_*_TIMEOUT_MS). */
export interface DatabaseTimeouts {
  /** Opening a connection (TCP + startup) — and waiting for a free pool slot. */
  connectMs: number;
  /** `statement_timeout`: one statement; a silent database fails the request instead of holding it. */
  statementMs: number;
  /** `lock_timeout`: waiting for one row or table lock. */
  lockMs: number;
  /** `idle_in_transaction_session_timeout`: a transaction left open by a stuck caller is ended. */
  idleInTransactionMs: number;
}

export const DEFAULT_DATABASE_TIMEOUTS: DatabaseTimeouts = { connectMs: 5_000, statementMs: 30_000, lockMs: 10_000, idleInTransactionMs: 60_000 };
