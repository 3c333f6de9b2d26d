/**
 * Matching a concrete request against an OpenAPI document: path template, response entry and
 * media type. Invariant: literal segments win over templated ones, left to right — so
 * `/v1/connections/search` picks `/v1/connections/search` over `/v1/connections/{id}`, as
 * OpenAPI requires — and status codes prefer the exact code, then the `NXX` range, then `default`.
 */

export interface PathMatch {
  template: string;
  item: Record<string, unknown>;
  params: Record<string, string>;
}

function escapeRegex(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** Matches one segment (`{id}`, `{id}.json`, `search`); returns captured params or undefined. */
function matchSegment(template: string, concrete: string): Record<string, string> | undefined {
  if (!template.includes('{')) return template === concrete ? {} : undefined;
  const names: string[] = [];
  const source = template
    .split(/(\{[^}]+\})/)
    .map((part) => {
      const param = /^\{([^}]+)\}$/.exec(part);
      if (!param?.[1]) return escapeRegex(part);
      names.push(param[1]);
      return '([^/]+)';
    })
    .join('');
  const match = new RegExp(`^${source}$`).exec(concrete);
  if (!match) return undefined;
  return Object.fromEntries(names.map((name, i) => [name, decodeURIComponent(match[i + 1] ?? '')]));
}

export function findDocumentedPath(paths: Record<string, Record<string, unknown>>, concretePath: string): PathMatch | undefined {
  const segments = concretePath.split('/');
  let best: { match: PathMatch; score: number[] } | undefined;
  for (const [template, item] of Object.entries(paths)) {
    const parts = template.split('/');
    if (parts.length !== segments.length) continue;
    const params: Record<string, string> = {};
    const score: number[] = [];
    let ok = true;
    for (let i = 0; i < parts.length && ok; i++) {
      const captured = matchSegment(parts[i] ?? '', segments[i] ?? '');
      if (!captured) ok = false;
      else {
        Object.assign(params, captured);
        score.push((parts[i] ?? '').includes('{') ? 0 : 1);
      }
    }
    if (!ok) continue;
    if (!best || compareScores(score, best.score) > 0) best = { match: { template, item, params }, score };
  }
  return best?.match;
}

function compareScores(a: number[], b: number[]): number {
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const diff = (a[i] ?? 0) - (b[i] ?? 0);
    if (diff !== 0) return diff;
  }
  return 0;
}

/** The response entry for `status`: exact code, then `2XX`-style range, then `default`. */
export function pickResponse(responses: Record<string, unknown>, status: number): { key: string; response: unknown } | undefined {
  const exact = String(status);
  const range = `${exact[0]}XX`;
  for (const key of [exact, range, range.toLowerCase(), 'default']) {
    if (key in responses) return { key, response: responses[key] };
  }
  return undefined;
}

/**
 * The documented media type for the response's Content-Type (parameters ignored; `type/*` and
 * `*\/*` entries match). Without a Content-Type: application/json if documented, else the only entry.
 */
export function pickMediaType(content: Record<string, unknown>, contentType: string | undefined): string | undefined {
  const keys = Object.keys(content);
  if (!contentType) return 'application/json' in content ? 'application/json' : keys.length === 1 ? keys[0] : undefined;
  const actual = (contentType.split(';')[0] ?? '').trim().toLowerCase();
  const [type] = actual.split('/');
  return keys.find((k) => k.toLowerCase() === actual) ?? keys.find((k) => k.toLowerCase() === `${type}/*`) ?? keys.find((k) => k === '*/*');
}
