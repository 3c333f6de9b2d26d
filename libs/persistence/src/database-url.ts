/**
 * Where the database is, and how to mention it in a log line.
 *
 * Invariant: a password never reaches a log — every URL that is printed goes through maskUrl(),
 * which also masks URLs it cannot parse (it then hides everything between `//` and `@`).
 */

/** Used when DATABASE_URL is unset: the local PostgreSQL of a dev machine or CI (trust auth). */
export const DEFAULT_DATABASE_URL = 'postgres://postgres@127.0.0.1:5432/postgres';

/** DATABASE_URL when set and non-blank, else DEFAULT_DATABASE_URL. */
export function resolveDatabaseUrl(env: Readonly<Record<string, string | undefined>> = process.env): string {
  const value = env['DATABASE_URL']?.trim();
  return value ? value : DEFAULT_DATABASE_URL;
}

/** `postgres://app:secret@db:5432/x` → `postgres://app:***@db:5432/x`; URLs without a password are unchanged. */
export function maskUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (!parsed.password) return url;
    parsed.password = '***';
    return parsed.toString();
  } catch {
    // Unparseable: hide the whole userinfo part rather than guess where a password ends.
    return url.replace(/\/\/[^/]*@/, '//***@');
  }
}
