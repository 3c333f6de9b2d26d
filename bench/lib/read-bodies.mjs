/**
 * Body comparison for the stored-read scenarios (runner `comparable`): a TripPage's `next` is a
 * signed cursor over the walk's horizon snapshot, which moves whenever any transaction on the
 * server commits, so it differs between requests and between implementations. Everything else is
 * compared byte for byte; `next` only for presence.
 */

/** The body text with `next` replaced by whether it was present (non-JSON text is returned as is). */
export function withoutNext(text) {
  let body;
  try {
    body = JSON.parse(text);
  } catch {
    return text;
  }
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return text;
  const { next, ...rest } = body;
  return JSON.stringify({ ...rest, next: typeof next === 'string' && next.length > 0 });
}

/** JSON with every object's keys sorted (non-JSON text is returned as is): equality up to key order. */
export function canonicalJson(text) {
  let body;
  try {
    body = JSON.parse(text);
  } catch {
    return text;
  }
  const sort = (value) => {
    if (Array.isArray(value)) return value.map(sort);
    if (value === null || typeof value !== 'object') return value;
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .map((key) => [key, sort(value[key])]),
    );
  };
  return JSON.stringify(sort(body));
}
