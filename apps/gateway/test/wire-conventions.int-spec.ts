/**
 * The wire conventions (decision 0017) over the committed OpenAPI document.
 * Timestamps: every date-time property of every response component states the one wire pattern
 * (RFC 3339 UTC, exactly milliseconds), which every validated response in the suites then meets.
 * Mutation tried: the pattern dropped from wireDateTimeV1's meta (libs/messaging public-wire.v1.ts)
 * → the timestamp case fails.
 * Paging: one convention over every list route of the committed OpenAPI document (decision 0017,
 * libs/messaging public-wire.v1.ts): each page shape a route answers has `next` — an optional,
 * never-null cursor string — unless the spec fixes another shape for it (Vehicles: `nextCursor`,
 * required, null on the last page). The runtime side (absent `next` on a last page, null
 * `nextCursor`) is checked by the system-tests of each list (syncs-list, trips, drivers, groups,
 * vehicles), whose every response is validated against this document.
 * Mutation tried: the sync page's `next` back to `.nullable()` (libs/messaging sync-api.v1.ts) →
 * the SyncPage case fails.
 */
import { describe, expect, it } from '@jest/globals';
import { WIRE_DATE_TIME_PATTERN } from '@switchyard/domain';
import { loadOpenApi } from '@switchyard/testing';

type Schema = Record<string, unknown> & { properties?: Record<string, Schema>; required?: string[]; oneOf?: Schema[]; anyOf?: Schema[]; $ref?: string; type?: unknown };

const doc = loadOpenApi() as unknown as {
  paths: Record<string, Record<string, { parameters?: { name: string; in: string }[]; requestBody?: { content?: Record<string, { schema?: Schema }> }; responses: Record<string, { content?: Record<string, { schema?: Schema }> }> }>>;
  components: { schemas: Record<string, Schema> };
};

/**
 * Page shapes whose cursor member the spec fixes otherwise: Vehicles (2.6), Faults (2.9) and
 * FleetLocations and FleetUtilization (2.10) have a required `nextCursor`, null on the last page; FaultEvents (2.9) and
 * History (2.10) a required, non-null `nextCursor` beside a required `hasMore`.
 */
const SPEC_FIXED: Record<string, { nullable: boolean; hasMore: boolean }> = {
  Vehicles: { nullable: true, hasMore: false },
  Faults: { nullable: true, hasMore: false },
  FleetLocations: { nullable: true, hasMore: false },
  FleetUtilization: { nullable: true, hasMore: false },
  FaultEvents: { nullable: false, hasMore: true },
  History: { nullable: false, hasMore: true },
};

const resolve = (s: Schema): { name: string; schema: Schema } => {
  const name = s.$ref?.replace('#/components/schemas/', '') ?? '(inline)';
  return { name, schema: s.$ref ? doc.components.schemas[name]! : s };
};
const nullable = (s: Schema): boolean => s.type === 'null' || (Array.isArray(s.type) && s.type.includes('null')) || (s.anyOf ?? s.oneOf ?? []).some(nullable);

const listRoutes = Object.entries(doc.paths).flatMap(([path, item]) =>
  Object.entries(item)
    .filter(([method, op]) => method === 'get' && (op.parameters ?? []).some((p) => p.in === 'query' && p.name === 'cursor'))
    .map(([, op]) => ({ path, op })),
);

describe('the paging convention of every list route', () => {
  it('covers at least the five lists of spec 4.1 and 4.2', () => {
    expect(listRoutes.map((r) => r.path)).toEqual(expect.arrayContaining(['/v1/connections/{id}/drivers', '/v1/connections/{id}/groups', '/v1/connections/{id}/trips', '/v1/connections/{id}/vehicles', '/v1/syncs']));
  });

  it.each(listRoutes)('$path: every page shape has `next` (optional, never null) or the spec-fixed cursor', ({ op }) => {
    const root = op.responses['200']!.content!['application/json']!.schema!;
    const pages = (root.oneOf ?? [root]).map(resolve);
    for (const { name, schema } of pages) {
      const fixed = SPEC_FIXED[name];
      const props = schema.properties ?? {};
      if (fixed) {
        expect({ name, required: schema.required?.includes('nextCursor'), nullable: nullable(props.nextCursor!), hasMore: schema.required?.includes('hasMore') ?? false, next: 'next' in props }).toEqual({
          name,
          required: true,
          nullable: fixed.nullable,
          hasMore: fixed.hasMore,
          next: false,
        });
        continue;
      }
      const next = props.next;
      expect({ name, has: next !== undefined, required: schema.required?.includes('next') ?? false, nullable: next ? nullable(next) : false, nextCursor: 'nextCursor' in props }).toEqual({
        name,
        has: true,
        required: false,
        nullable: false,
        nextCursor: false,
      });
      expect(next).toMatchObject({ type: 'string', pattern: '^[A-Za-z0-9_-]+$' });
    }
  });
});

/**
 * Request bodies: a date-time a client sends may have any RFC 3339 form. The components only a
 * request body names (CreateSync, ReplayWebhook, …), read from the document, not listed by hand.
 */
const responseRefs = new Set<string>();
const requestRefs = new Set<string>();
const refsIn = (node: unknown, into: Set<string>): void => {
  if (!node || typeof node !== 'object') return;
  const ref = (node as Schema).$ref;
  if (typeof ref === 'string') into.add(ref.replace('#/components/schemas/', ''));
  for (const v of Object.values(node)) refsIn(v, into);
};
for (const operations of Object.values(doc.paths))
  for (const operation of Object.values(operations)) {
    refsIn(operation.requestBody, requestRefs);
    refsIn(operation.responses, responseRefs);
  }
const REQUEST_SCHEMAS = new Set([...requestRefs].filter((name) => !responseRefs.has(name)));

describe('the timestamp format of every response', () => {
  const offenders: string[] = [];
  let seen = 0;
  const walk = (node: unknown, where: string): void => {
    if (!node || typeof node !== 'object') return;
    const s = node as Schema;
    if (s.format === 'date-time') {
      seen += 1;
      if (s.pattern !== WIRE_DATE_TIME_PATTERN) offenders.push(where);
    }
    for (const [k, v] of Object.entries(s)) walk(v, `${where}.${k}`);
  };
  for (const [name, schema] of Object.entries(doc.components.schemas)) if (!REQUEST_SCHEMAS.has(name)) walk(schema, name);

  it('every date-time of a response component is RFC 3339 UTC with exactly milliseconds', () => {
    expect(seen).toBeGreaterThan(20);
    expect(offenders).toEqual([]);
    expect(new RegExp(WIRE_DATE_TIME_PATTERN).test('2026-11-24T10:15:23.000Z')).toBe(true);
    for (const other of ['2026-11-24T10:15:23Z', '2026-11-24T10:15:23.000+00:00', '2026-11-24T10:15:23.123456Z']) expect(new RegExp(WIRE_DATE_TIME_PATTERN).test(other)).toBe(false);
  });
});
