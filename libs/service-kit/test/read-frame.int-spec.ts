/**
 * The stored-read frame (src/read/db/read-frame.ts) and the contract's value shapes as SQL
 * (json-shape.ts) on the real PostgreSQL, over generated rows (no tables):
 * - a page holds at most `limit` items, says `hasMore` exactly when rows remain, and a walk with
 *   the last position visits every row once, in order;
 * - rows selected as not shown (`passesHidden`) count against the limit and move the position but
 *   are never served;
 * - the byte budget counts `[`, the items and their commas: a page of exactly `maxBytes` bytes is
 *   served whole, one byte less ends it an item earlier; the first item is served even when it
 *   alone is over the budget;
 * - every metric's value schema and the unit conversion give the same verdict in SQL as zod's parse
 *   on valid and invalid samples, and so do the contract's string patterns (driver email and phone,
 *   date-times), Unicode digits and a trailing newline included, and the vehicle metadata values
 *   (string lengths in code points as zod counts them, years, enums, arrays of group objects);
 * - the frame over items the application renders (rendered-frame.ts) takes the same pages as the
 *   SQL frame over the same items, at every limit and at each byte boundary.
 * Mutations tried: in frameRendered, `bytes > maxBytes` → `>=`, or the count starting at 2 (the
 * usage fleet page's former loop) → "takes the same pages" fails; `bytes <= ?` → `bytes < ?` in readFrame fails "fills to exactly maxBytes";
 * dropping `n = 1 or` fails "serves the first item"; dropping the strict-object rule
 * (`- array[…] = '{}'`) of jsonShapeSql fails "gives zod's verdict"; a pattern's `?` left as is
 * (bound as a parameter) fails the pattern case; a string's length in UTF-16 units (as
 * JavaScript's .length) fails the metadata case (zod passes 513 characters beyond U+FFFF).
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { TELEMETRY_METRICS } from '@switchyard/domain';
import { driverEmailV1, driverPhoneV1, isoDateTimeV1, METRIC_VALUES, unitConversionV1, VEHICLE_METADATA_VALUE_SCHEMAS } from '@switchyard/messaging';
import { createOrm, type Orm } from '@switchyard/persistence';
import type { z } from 'zod';
import { jsonShapeSql } from '../src/read/db/json-shape.js';
import { readFrame } from '../src/read/db/read-frame.js';
import { frameRendered } from '../src/read/rendered-frame.js';
import { databaseUrl } from './support.js';

describe('read frame', () => {
  // Generated rows only: no schema of its own, the public one for the connection.
  let orm: Orm;
  const db = { em: () => orm.em.fork(), sql: <T>(sql: string, params: unknown[]) => orm.em.fork().execute<T[]>(sql, params) };
  beforeAll(async () => {
    orm = await createOrm({ clientUrl: databaseUrl, schema: 'public', entities: [], migrations: [], allServiceSchemas: [], poolMax: 2, logger: () => undefined });
  });
  afterAll(() => orm?.close(true));

  /** Rows 1..n after `after`, each `{"n":i,"pad":"<k × x>"}` at position i, ascending. */
  const page = (n: number, k: number, after: number, limit: number, maxBytes: number) =>
    readFrame<number>(db.em(), { sql: `select json_build_object('n', i, 'pad', repeat('x', ?)) as body, to_json(i) as position from generate_series(1, ?) i where i > ? order by i`, params: [k, n, after] }, { limit, maxBytes });

  it('serves at most limit items, says hasMore exactly when rows remain, and walks every row once in order', async () => {
    const seen: number[] = [];
    let after = 0;
    let pages = 0;
    for (;;) {
      const p = await page(7, 3, after, 3, 1_000_000);
      const items = JSON.parse(p.items) as { n: number }[];
      expect(items.length).toBeLessThanOrEqual(3);
      expect(p.count).toBe(items.length);
      seen.push(...items.map((i) => i.n));
      pages++;
      if (!p.hasMore) break;
      expect(p.last).toBe(items.at(-1)?.n);
      after = p.last ?? 0;
    }
    expect(seen).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(pages).toBe(3);
    expect(await page(0, 3, 0, 3, 1000)).toEqual({ items: '[]', count: 0, hasMore: false });
    // Exactly limit rows left: no further page is announced.
    expect(await page(3, 3, 0, 3, 1000)).toMatchObject({ count: 3, hasMore: false, last: 3 });
  });

  it('fills to exactly maxBytes of JSON array text, and ends an item earlier one byte below', async () => {
    const whole = await page(4, 10, 0, 100, 1_000_000);
    const size = Buffer.byteLength(whole.items);
    expect(await page(4, 10, 0, 100, size)).toMatchObject({ count: 4, hasMore: false, items: whole.items });
    const cut = await page(4, 10, 0, 100, size - 1);
    expect(cut).toMatchObject({ count: 3, hasMore: true, last: 3 });
    expect(Buffer.byteLength(cut.items)).toBeLessThanOrEqual(size - 1);
  });

  it('serves the first item even when it alone is over the budget', async () => {
    expect(await page(2, 5000, 0, 10, 1024)).toMatchObject({ count: 1, hasMore: true, last: 1 });
  });

  it('passes rows not shown: they count against limit and move the position, unserved and uncounted in bytes', async () => {
    // Rows 1..6, the even ones hidden.
    const rows = (after: number) => ({ sql: `select json_build_object('n', i) as body, to_json(i) as position, i % 2 = 1 as shown from generate_series(1, 6) i where i > ? order by i`, params: [after], passesHidden: true });
    const first = await readFrame<number>(db.em(), rows(0), { limit: 4, maxBytes: 1_000_000 });
    expect(first).toMatchObject({ count: 2, hasMore: true, last: 4 });
    expect(JSON.parse(first.items)).toEqual([{ n: 1 }, { n: 3 }]);
    // Only hidden rows left on a page: nothing served, the position still passes them.
    expect(await readFrame<number>(db.em(), { ...rows(5), sql: rows(5).sql.replace('i % 2 = 1', 'false') }, { limit: 4, maxBytes: 1_000_000 })).toEqual({ items: '[]', count: 0, hasMore: false, last: 6 });
  });

  it('counts bytes, not characters', async () => {
    const body = { sql: `select json_build_object('s', repeat('é', 10)) as body, to_json(i) as position from generate_series(1, 2) i order by i`, params: [] };
    const whole = await readFrame(db.em(), body, { limit: 10, maxBytes: 1_000_000 });
    const bytes = Buffer.byteLength(whole.items);
    // 'é' is two bytes: counting characters would let both items into 20 bytes fewer.
    expect(whole.items.length).toBe(bytes - 20);
    expect(await readFrame(db.em(), body, { limit: 10, maxBytes: bytes })).toMatchObject({ count: 2, hasMore: false });
    expect(await readFrame(db.em(), body, { limit: 10, maxBytes: whole.items.length })).toMatchObject({ count: 1, hasMore: true });
  });

  it('takes the same pages over items the application renders (frameRendered) as over rows PostgreSQL renders', async () => {
    // Five items of different sizes, one with two-byte characters.
    const sql = `select json_build_object('n', i, 'pad', repeat(case when i = 3 then 'é' else 'x' end, i * 7)) as body, to_json(i) as position from generate_series(1, 5) i where i > ? order by i`;
    const rows = await db.sql<{ body: unknown; position: number }>(sql.replace(' as body', '::text as body'), [0]);
    const texts = rows.map((r) => String(r.body));
    const cumulative = texts.map((_, i) => 1 + texts.slice(0, i + 1).reduce((n, t) => n + Buffer.byteLength(t) + 1, 0));
    const budgets = [1024, ...cumulative.flatMap((b) => [b - 1, b, b + 1]), 1_000_000];
    let compared = 0;
    for (const after of [0, 2]) {
      const rest = rows.filter((r) => r.position > after);
      for (const limit of [1, 2, 3, 5, 6]) {
        for (const maxBytes of budgets) {
          const inSql = await readFrame<number>(db.em(), { sql, params: [after] }, { limit, maxBytes });
          const inApp = frameRendered(rest, { limit, maxBytes }, { render: (r) => String(r.body), position: (r) => r.position });
          expect({ after, limit, maxBytes, ...inApp }).toEqual({ after, limit, maxBytes, ...inSql });
          compared++;
        }
      }
    }
    expect(compared).toBe(2 * 5 * budgets.length);
  });

  it("gives zod's verdict on every metric value and unit conversion, valid and invalid", async () => {
    const samples: unknown[] = [
      { latitude: 50, longitude: 4 },
      { latitude: 91, longitude: 4 },
      { latitude: 50, longitude: -181 },
      { latitude: 50 },
      { latitude: 50, longitude: 4, altitude: 1 },
      { latitude: '50', longitude: 4 },
      { meters: 0 },
      { meters: -1 },
      { meters: 12.5, extra: true },
      { seconds: 3600 },
      { value: 0 },
      { value: 360 },
      { value: 361 },
      { value: 100.5 },
      { value: -0.1 },
      { state: 'on' },
      { state: 'idle' },
      { state: 'flying' },
      { source: 'miles', normalized: 'meters', factor: 1609.344 },
      { source: 'meters', normalized: 'meters', factor: 1 },
      { source: 'hours', normalized: 'seconds', factor: 3600 },
      { source: 'hours', normalized: 'seconds', factor: 0 },
      { source: 'miles', normalized: 'seconds', factor: 2 },
      'text',
      7,
      null,
      [],
    ];
    const schemas: [string, z.ZodType][] = [...TELEMETRY_METRICS.map((m) => [m, METRIC_VALUES[m]] as [string, z.ZodType]), ['units', unitConversionV1]];
    for (const [name, schema] of schemas) {
      const values = samples.map((_, i) => `(${i}, ?::jsonb)`).join(', ');
      const verdicts = await db.sql<{ ok: boolean }>(`select ${jsonShapeSql(schema, 's.x')} as ok from (values ${values}) s(i, x) order by s.i`, samples.map((v) => JSON.stringify(v)));
      const inSql = verdicts.map((v) => v.ok);
      const inZod = samples.map((s) => schema.safeParse(s).success);
      expect({ name, verdicts: inSql }).toEqual({ name, verdicts: inZod });
    }
  });

  it("gives zod's verdict on the vehicle metadata values: lengths in code points, years, enums, group arrays", async () => {
    const emoji = '\u{1F69A}';
    const groups = (n: number, over: object = {}) => Array.from({ length: n }, (_, i) => ({ id: `g${i}`, ...over }));
    const samples: unknown[] = [
      '',
      'x',
      'x'.repeat(1024),
      'x'.repeat(1025),
      emoji.repeat(512),
      emoji.repeat(513),
      `${'x'.repeat(1023)}${emoji}`,
      1886,
      2200,
      1885,
      2000.5,
      'diesel',
      'Diesel',
      [],
      groups(3),
      groups(2, { name: 'North' }),
      groups(1, { name: '' }),
      groups(1, { extra: true }),
      [{ id: 'x'.repeat(256) }],
      [{ id: 'x'.repeat(257) }],
      [{ id: '' }],
      [{ name: 'no id' }],
      ['g1'],
      groups(1000),
      groups(1001),
      null,
      {},
    ];
    const keys = (Object.keys(VEHICLE_METADATA_VALUE_SCHEMAS) as (keyof typeof VEHICLE_METADATA_VALUE_SCHEMAS)[]).filter((k) => !['createdAt', 'updatedAt', 'activeFrom', 'activeTo'].includes(k));
    for (const name of keys) {
      const schema = VEHICLE_METADATA_VALUE_SCHEMAS[name];
      const values = samples.map((_, i) => `(${i}, ?::jsonb)`).join(', ');
      const verdicts = await db.sql<{ ok: boolean }>(`select ${jsonShapeSql(schema, 's.x')} as ok from (values ${values}) s(i, x) order by s.i`, samples.map((v) => JSON.stringify(v)));
      expect({ name, verdicts: verdicts.map((v) => v.ok) }).toEqual({ name, verdicts: samples.map((v) => schema.safeParse(v).success) });
    }
  });

  it("gives zod's verdict on the contract's string patterns (driver email and phone, date-times)", async () => {
    const samples: unknown[] = [
      'ada@example.com',
      "o'brien+x@mail.example.co",
      '.ada@example.com',
      'a..b@example.com',
      'ada@example-.com',
      'ada@-example.com',
      'ada@example.c',
      'ada@exa_mple.com',
      'ada@example.com\n',
      'ADA@EXAMPLE.COM',
      '+14155550100',
      '+04155550100',
      '+1415555010',
      '+1415555010012345',
      '+١٤١٥٥٥٥٠١٠٠',
      '14155550100',
      '2026-11-24T10:15:23Z',
      '2026-11-24T10:15:23.123456789+02:00',
      '2024-02-29T00:00:00.000Z',
      '2023-02-29T00:00:00.000Z',
      '2026-11-24T24:00:00Z',
      '2026-11-24 10:15:23Z',
      '2026-11-24T10:15:23',
      '٢٠٢٦-11-24T10:15:23Z',
      '',
      7,
      null,
    ];
    const schemas: [string, z.ZodType][] = [
      ['email', driverEmailV1],
      ['phone', driverPhoneV1],
      ['date-time', isoDateTimeV1],
    ];
    for (const [name, schema] of schemas) {
      const values = samples.map((_, i) => `(${i}, ?::jsonb)`).join(', ');
      const verdicts = await db.sql<{ ok: boolean }>(`select ${jsonShapeSql(schema, 's.x')} as ok from (values ${values}) s(i, x) order by s.i`, samples.map((v) => JSON.stringify(v)));
      expect({ name, verdicts: verdicts.map((v) => v.ok) }).toEqual({ name, verdicts: samples.map((s) => schema.safeParse(s).success) });
    }
  });
});
