/**
 * The closed set of errors the messaging port raises or understands. Transport errors
 * (`BusTimeoutError`, `BusUnavailableError`) are raised by the bus; `RpcError` is the one typed
 * error that crosses the wire (as `{ "error": { "code", "detail" } }`); `PoisonMessage` and
 * `RetryLater` are thrown by durable handlers to steer settlement.
 * Invariant: every code is snake_case, so callers can switch on it exhaustively.
 */

const SNAKE_CASE = /^[a-z][a-z0-9]*(_[a-z0-9]+)*$/;

function assertSnakeCase(kind: string, code: string): void {
  if (!SNAKE_CASE.test(code)) throw new TypeError(`${kind} code must be snake_case, got "${code}"`);
}

/** A request's deadline passed before a reply arrived (the responder may still run it). */
export class BusTimeoutError extends Error {
  override readonly name = 'BusTimeoutError';
  constructor(
    readonly subject: string,
    readonly timeoutMs: number,
  ) {
    super(`request to ${subject} timed out after ${timeoutMs} ms`);
  }
}

/**
 * Nobody serves the subject, no stream captures it, the connection is down, or the stream is full
 * (`stream_full`: its byte limit with `discard: new`, or the server's store; decision 0026) — every
 * reason a "try again later" for the caller, never a verdict on the message.
 */
export class BusUnavailableError extends Error {
  override readonly name = 'BusUnavailableError';
  constructor(
    readonly subject: string,
    readonly reason: 'no_responders' | 'no_stream' | 'stream_full' | 'connection_closed' | 'connection_error' | 'authorization_error' | 'tls_error',
    options?: ErrorOptions,
  ) {
    super(`${subject}: ${reason}`, options);
  }
}

/** Wire shape of an RPC error reply. */
export interface RpcErrorBody {
  error: { code: string; detail?: string };
}

/**
 * A typed error returned by an RPC handler. Thrown by a handler, it becomes the reply body
 * `{ error: { code, detail } }`; at the requester it is rethrown as the same class.
 * Codes the bus itself produces: `invalid_request`, `invalid_response`, `internal_error`.
 */
export class RpcError extends Error {
  override readonly name = 'RpcError';
  constructor(
    readonly code: string,
    readonly detail?: string,
  ) {
    super(detail ? `${code}: ${detail}` : code);
    assertSnakeCase('RpcError', code);
  }

  toBody(): RpcErrorBody {
    return { error: this.detail === undefined ? { code: this.code } : { code: this.code, detail: this.detail } };
  }

  /** Recognizes an error reply: an object whose only key is `error` with a string `code`. */
  static fromBody(body: unknown): RpcError | undefined {
    if (typeof body !== 'object' || body === null || Array.isArray(body)) return undefined;
    const keys = Object.keys(body);
    if (keys.length !== 1 || keys[0] !== 'error') return undefined;
    const inner = (body as { error: unknown }).error;
    if (typeof inner !== 'object' || inner === null) return undefined;
    const { code, detail } = inner as { code?: unknown; detail?: unknown };
    if (typeof code !== 'string' || !SNAKE_CASE.test(code)) return undefined;
    return new RpcError(code, typeof detail === 'string' ? detail : undefined);
  }
}

/** A payload failed its schema on the publishing side: a programming error, never sent. */
export class MessageValidationError extends Error {
  override readonly name = 'MessageValidationError';
  readonly code = 'invalid_message';
  constructor(
    readonly subject: string,
    readonly detail: string,
  ) {
    super(`payload for ${subject} failed its schema: ${detail}`);
  }
}

/**
 * Thrown by a durable handler: this message can never succeed. It is dead-lettered with
 * `reason` (snake_case, default `poison`) and terminated, never retried.
 */
export class PoisonMessage extends Error {
  override readonly name = 'PoisonMessage';
  constructor(
    readonly reason = 'poison',
    readonly detail?: string,
  ) {
    super(detail ? `${reason}: ${detail}` : reason);
    assertSnakeCase('PoisonMessage reason', reason);
  }
}

/** Thrown by a durable handler: try again later (nak), after `delayMs` if given, else the backoff. */
export class RetryLater extends Error {
  override readonly name = 'RetryLater';
  constructor(
    readonly delayMs?: number,
    message = 'retry later',
  ) {
    super(message);
  }
}

/**
 * A stream a service needs is missing or differs from its definition (decision 0033). Streams are
 * provisioned by the provisioning step, never by a service: the service refuses to start instead
 * of rewriting the stream, and says which stream and field differ.
 */
export class StreamConfigMismatchError extends Error {
  constructor(
    readonly stream: string,
    /** e.g. `max_msgs is 1, expected -1`; empty when the stream does not exist. */
    readonly differences: readonly string[],
  ) {
    super(
      `${differences.length === 0 ? `stream ${stream} does not exist` : `stream ${stream} differs from its definition (deploy/nats/streams): ${differences.join('; ')}`}` +
        ' — streams are provisioned, never changed by a service: run the provisioning step (npm run nats:provision, the Kubernetes Job nats-provision; docs/deploy.md) before starting services',
    );
    this.name = 'StreamConfigMismatchError';
  }
}
