/**
 * Structured logging (pino) shared by every service.
 * Invariants: every line carries `service` and, inside a request or message handler, the
 * `correlationId`; credentials are never written — known secret-bearing keys are redacted by path,
 * and any string that looks like one of our tokens (sk_…, pt_…, ct_…, a webhook signing secret
 * whsec_…) is masked wherever it appears.
 */
import type { LoggerService } from '@nestjs/common';
import { pino, type Logger } from 'pino';
import { currentCorrelation } from '@switchyard/messaging';

/**
 * Our credential formats (apps/gateway/src/services/credential-format.ts), and webhook signing
 * secrets: `whsec_` + base64, whose `+`, `/` and `=` a word-character pattern would stop at, leaving
 * the rest of the key in the line (apps/gateway/src/services/webhook-signature.ts).
 */
const TOKEN_PATTERN = /\b(sk_(?:prod|sandbox)_|pt_|ct_)[A-Za-z0-9]{6,}|\b(whsec_)[A-Za-z0-9+/]{6,}={0,2}/g;

export function maskSecrets(text: string): string {
  return text.replace(TOKEN_PATTERN, (_m, prefix: string | undefined, webhookPrefix: string | undefined) => `${prefix ?? webhookPrefix}[redacted]`);
}

function maskDeep(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') return maskSecrets(value);
  if (depth > 6 || value === null || typeof value !== 'object') return value;
  if (value instanceof Error) return { type: value.name, message: maskSecrets(value.message), stack: value.stack && maskSecrets(value.stack) };
  if (Array.isArray(value)) return value.map((v) => maskDeep(v, depth + 1));
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, maskDeep(v, depth + 1)]));
}

const REDACT_PATHS = [
  'authorization',
  'password',
  'secret',
  'token',
  'apiKey',
  'apiToken',
  'accessToken',
  'refreshToken',
  'connectionToken',
  'applicationSecret',
  'consumerKey',
  '*.authorization',
  '*.password',
  '*.secret',
  '*.token',
  '*.apiKey',
  '*.apiToken',
  '*.accessToken',
  '*.refreshToken',
  '*.connectionToken',
  '*.applicationSecret',
  '*.consumerKey',
  'req.headers.authorization',
  'req.headers["connection-token"]',
  'headers.authorization',
  'headers["connection-token"]',
];

export interface CreateLoggerOptions {
  service: string;
  /** A process role of the service other than its main one (the gateway's `webhook-delivery`): on every line. */
  role?: string;
  level?: string;
  /** Where lines go; defaults to stdout. Tests pass a stream to assert on output. */
  destination?: NodeJS.WritableStream;
}

export function createLogger({ service, role, level = 'info', destination }: CreateLoggerOptions): Logger {
  return pino(
    {
      level,
      base: role ? { service, role } : { service },
      redact: { paths: REDACT_PATHS, censor: '[redacted]' },
      timestamp: pino.stdTimeFunctions.isoTime,
      mixin() {
        const ctx = currentCorrelation();
        if (!ctx) return {};
        // The W3C trace id (the traceparent's second field): one id per trace across every hop.
        const traceId = ctx.traceparent?.split('-')[1];
        return traceId ? { correlationId: ctx.correlationId, traceId } : { correlationId: ctx.correlationId };
      },
      hooks: {
        // Last line of defence: mask token-shaped strings in the message itself.
        logMethod(args, method) {
          const masked = args.map((a) => (typeof a === 'string' ? maskSecrets(a) : a)) as Parameters<typeof method>;
          method.apply(this, masked);
        },
      },
      formatters: {
        level: (label) => ({ level: label }),
        // Token-shaped strings are masked in every field, however deep (URLs with query strings,
        // error messages that echo input), not only under the redacted key paths above.
        log: (object) => maskDeep(object) as Record<string, unknown>,
      },
    },
    destination ?? pino.destination({ sync: false }),
  );
}

/** Adapts pino to Nest's LoggerService so framework messages use the same pipeline. */
export class NestPinoLogger implements LoggerService {
  constructor(private readonly logger: Logger) {}
  // Nest's own "log" level is start-up chatter (modules, routes): debug for us.
  log(message: unknown, context?: string) {
    this.logger.debug({ context }, String(message));
  }
  error(message: unknown, trace?: string, context?: string) {
    this.logger.error({ context, trace: trace ? maskSecrets(trace) : undefined }, String(message));
  }
  warn(message: unknown, context?: string) {
    this.logger.warn({ context }, String(message));
  }
  debug(message: unknown, context?: string) {
    this.logger.debug({ context }, String(message));
  }
  verbose(message: unknown, context?: string) {
    this.logger.trace({ context }, String(message));
  }
}

export type { Logger };
