/**
 * A client span per PostgreSQL statement (OpenTelemetry database conventions), made at our own
 * query path: every connection of the app's `pg` pool (createOrm `onPool`) has its `query` wrapped,
 * so whatever runs SQL — MikroORM's entity manager, kysely, `em.execute`, COPY on the native
 * client — is seen, with no loader hook. `@opentelemetry/instrumentation-pg` was measured and not
 * taken (decision 0040): under ESM it patches `pg` only when registered before the app's static
 * imports load it (a preload `--import` in every entry point, jest included), and it records the
 * statement as sent — MikroORM inlines every parameter into the text, so values would be attributes.
 *
 * Invariants:
 * - no value reaches a span: `db.query.text` is the statement with every literal (strings, E'' and
 *   dollar-quoted strings, numbers) replaced by `?`, cut at 2,000 characters; the span name is the
 *   summary (`SELECT directory.trip`, `COMMIT`);
 * - a statement is traced only inside a recording span (a request, a handler, a collector job):
 *   background polls (outbox relay, lease loops, rate reconciliation every 100 ms) make no root
 *   traces of their own;
 * - the wrapper returns what `query` returns (a promise, a submittable such as a COPY stream or a
 *   cursor, or nothing when given a callback), and ends the span exactly once when it settles.
 */
import { context, SpanKind, SpanStatusCode, trace, type Attributes, type Span, type Tracer } from '@opentelemetry/api';

/** The part of `pg.Client` the wrapper touches. */
export interface PgClient {
  query: (...args: unknown[]) => unknown;
  readonly database?: string;
  readonly host?: string;
  readonly port?: number;
}

/** The part of `pg.Pool` the hook needs: each new connection is announced before its first query. */
export interface PgPool {
  on(event: 'connect', listener: (client: PgClient) => void): unknown;
}

/** Longest `db.query.text` kept: enough to recognise a statement, bounded for a batch of 5,000 rows. */
export const QUERY_TEXT_LIMIT = 2_000;

/** Wraps `query` of every connection `pool` opens from now on. */
export function traceQueries(pool: PgPool, tracer: Tracer): void {
  pool.on('connect', (client) => {
    const query = client.query;
    const base: Attributes = { 'db.system.name': 'postgresql' };
    if (client.database) base['db.namespace'] = client.database;
    if (client.host) base['server.address'] = client.host;
    if (client.port) base['server.port'] = client.port;
    client.query = function tracedQuery(this: unknown, ...args: unknown[]): unknown {
      const parent = context.active();
      if (!trace.getSpan(parent)?.isRecording()) return query.apply(this, args);
      const text = sanitizeSql(statementText(args[0]));
      const summary = querySummary(text);
      const span = tracer.startSpan(summary, { kind: SpanKind.CLIENT, attributes: { ...base, 'db.query.summary': summary, 'db.query.text': text.slice(0, QUERY_TEXT_LIMIT), 'db.operation.name': summary.split(' ')[0] } }, parent);
      const last = args.length - 1;
      const callback = args[last];
      if (typeof callback === 'function') {
        args[last] = (error: unknown, result: unknown) => {
          endQuerySpan(span, error, result);
          return (callback as (e: unknown, r: unknown) => unknown)(error, result);
        };
      }
      let result: unknown;
      try {
        result = query.apply(this, args);
      } catch (error) {
        endQuerySpan(span, error, undefined);
        throw error;
      }
      if (typeof callback === 'function') return result;
      if (isPromise(result)) {
        result.then(
          (value) => endQuerySpan(span, undefined, value),
          (error: unknown) => endQuerySpan(span, error, undefined),
        );
        return result;
      }
      if (isEmitter(result)) {
        // A submittable (COPY stream, cursor): done when it ends, finishes, closes or fails.
        let ended = false;
        const end = (error?: unknown) => {
          if (ended) return;
          ended = true;
          endQuerySpan(span, error, undefined);
        };
        for (const event of ['end', 'finish', 'close']) result.once(event, () => end());
        result.once('error', (error: unknown) => end(error));
        return result;
      }
      endQuerySpan(span, undefined, undefined);
      return result;
    };
  });
}

function endQuerySpan(span: Span, error: unknown, result: unknown): void {
  if (error) {
    // The SQLSTATE, never the message: PostgreSQL's messages can quote a row's values.
    const code = typeof (error as { code?: unknown }).code === 'string' ? (error as { code: string }).code : 'error';
    span.setAttributes({ 'db.response.status_code': code, 'error.type': code });
    span.setStatus({ code: SpanStatusCode.ERROR, message: code });
  } else {
    const rows = (result as { rowCount?: unknown } | undefined)?.rowCount;
    if (typeof rows === 'number') span.setAttribute('db.response.returned_rows', rows);
  }
  span.end();
}

function statementText(first: unknown): string {
  if (typeof first === 'string') return first;
  const text = (first as { text?: unknown } | null)?.text;
  return typeof text === 'string' ? text : '';
}

function isPromise(value: unknown): value is Promise<unknown> {
  return typeof (value as { then?: unknown } | null)?.then === 'function';
}

function isEmitter(value: unknown): value is { once(event: string, listener: (...args: unknown[]) => void): unknown } {
  return typeof (value as { once?: unknown } | null)?.once === 'function';
}

/**
 * The statement with every literal replaced by `?`: '…' strings (with '' inside), E'…' strings
 * (with \' inside), $tag$…$tag$ strings and numbers — not identifiers ("…" or bare words, digits
 * inside them included) nor $1 placeholders. Comments are dropped (they may quote anything).
 * Stops once `limit` characters are written: a 5,000-row statement is not scanned to its end.
 */
export function sanitizeSql(sql: string, limit = QUERY_TEXT_LIMIT): string {
  let out = '';
  let i = 0;
  const n = sql.length;
  const isWord = (c: string | undefined) => c !== undefined && /[A-Za-z0-9_$]/.test(c);
  const skipTo = (from: number, needle: string) => {
    const at = sql.indexOf(needle, from);
    return at === -1 ? n : at;
  };
  while (i < n && out.length < limit) {
    const c = sql.charAt(i);
    const next = sql.charAt(i + 1);
    const before = i > 0 ? sql.charAt(i - 1) : undefined;
    if (c === '-' && next === '-') {
      i = skipTo(i, '\n');
    } else if (c === '/' && next === '*') {
      i = Math.min(n, skipTo(i + 2, '*/') + 2);
    } else if (c === '"') {
      const end = Math.min(n, skipTo(i + 1, '"') + 1);
      out += sql.slice(i, end);
      i = end;
    } else if (c === "'" || ((c === 'E' || c === 'e') && next === "'" && !isWord(before))) {
      const escapes = c !== "'";
      i += escapes ? 2 : 1;
      for (;;) {
        const quote = skipTo(i, "'");
        const backslash = escapes ? sql.indexOf('\\', i) : -1;
        if (backslash !== -1 && backslash < quote) {
          i = backslash + 2;
        } else if (quote < n && sql.charAt(quote + 1) === "'") {
          i = quote + 2;
        } else {
          i = Math.min(n, quote + 1);
          break;
        }
      }
      out += '?';
    } else if (c === '$' && !isWord(before) && !/[0-9]/.test(next)) {
      const tag = /^\$[A-Za-z_]?[A-Za-z0-9_]*\$/.exec(sql.slice(i, i + 64))?.[0];
      if (tag) {
        const close = sql.indexOf(tag, i + tag.length);
        i = close === -1 ? n : close + tag.length;
        out += '?';
      } else {
        out += c;
        i++;
      }
    } else if (/[0-9]/.test(c) && !isWord(before) && !(before === '.' && isWord(sql.charAt(i - 2)))) {
      while (i < n && /[0-9.eE]/.test(sql.charAt(i))) {
        if ((sql.charAt(i) === 'e' || sql.charAt(i) === 'E') && /[+-]/.test(sql.charAt(i + 1))) i++;
        i++;
      }
      out += '?';
    } else {
      out += c;
      i++;
    }
  }
  return out.replace(/\s+/g, ' ').trim();
}

const TARGET = /^\s*("[^"]+"|[A-Za-z_][\w$]*)(\s*\.\s*("[^"]+"|[A-Za-z_][\w$]*))?/;

/** `SELECT directory.trip`, `INSERT sync.sync_unit`, `COMMIT`: the operation and its first table. */
export function querySummary(sanitized: string): string {
  const operation = /^\s*\(?\s*([A-Za-z]+)/.exec(sanitized)?.[1]?.toUpperCase() ?? 'QUERY';
  const after = (keyword: RegExp): string | undefined => {
    const match = keyword.exec(sanitized);
    if (!match) return undefined;
    const target = TARGET.exec(sanitized.slice(match.index + match[0].length));
    return target ? target[0].replace(/["\s]/g, '') : undefined;
  };
  let target: string | undefined;
  if (operation === 'INSERT') target = after(/\binto\s+/i);
  else if (operation === 'UPDATE') target = after(/^\s*update\s+(only\s+)?/i);
  else if (operation === 'DELETE') target = after(/\bfrom\s+(only\s+)?/i);
  else if (operation === 'COPY') target = after(/^\s*copy\s+/i);
  else if (operation === 'SELECT' || operation === 'WITH') target = after(/\bfrom\s+(?!\()/i);
  return target ? `${operation} ${target}` : operation;
}
