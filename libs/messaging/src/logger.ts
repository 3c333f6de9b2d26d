/**
 * The minimal logger the bus needs: pino-compatible `(obj, msg)` calls, so service-kit can pass its
 * pino instance and this library never imports pino. Invariant: the bus never puts a message
 * payload in `obj` — only subjects, ids, counts, reasons and error names/messages.
 */
export interface BusLogger {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

export const silentLogger: BusLogger = { info: () => undefined, warn: () => undefined, error: () => undefined };

/** Default when none is given: warnings and errors as one JSON line each on stderr. */
export const stderrLogger: BusLogger = {
  info: () => undefined,
  warn: (obj, msg) => process.stderr.write(`${JSON.stringify({ level: 'warn', ...obj, msg })}\n`),
  error: (obj, msg) => process.stderr.write(`${JSON.stringify({ level: 'error', ...obj, msg })}\n`),
};

/** Loggable summary of an unknown error: name and message, never the object graph. */
export function describeError(error: unknown): { errName: string; errMessage: string } {
  if (error instanceof Error) return { errName: error.name, errMessage: error.message.slice(0, 500) };
  return { errName: typeof error, errMessage: String(error).slice(0, 500) };
}
