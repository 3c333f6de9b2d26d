/**
 * Query spans on the real PostgreSQL, through MikroORM's own pool (createOrm `onPool` →
 * traceQueries): a statement inside a span is a child of it, named by its summary, with its text
 * sanitized although MikroORM inlines every parameter into what it sends; a transaction shows its
 * BEGIN and COMMIT; a COPY stream is one span that ends when the stream finishes; a failing
 * statement carries its SQLSTATE; and a statement outside any span makes none.
 * Mutations tried: `sanitizeSql` returning its input (the inlined value reaches `db.query.text`) →
 * "no value" fails; the recording-parent check removed → "outside any span" fails.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { context, SpanStatusCode, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import { createRequire } from 'node:module';
import { pipeline } from 'node:stream/promises';
import { Readable } from 'node:stream';
import { migrateUp } from '../src/migrations.js';
import { createOrm, type Orm } from '../src/orm.js';
import { traceQueries, type PgClient } from '../src/query-spans.js';
import { DeviceSchema } from './fixtures/device.entity.js';
import { deviceMigrations } from './fixtures/device.migrations.js';
import { databaseUrl, dropSchemas, uniqueSchema } from './support.js';

const { from: copyFrom } = createRequire(import.meta.url)('pg-copy-streams') as { from(sql: string): NodeJS.WritableStream };

const schema = uniqueSchema('persist_spans');
const exporter = new InMemorySpanExporter();
const provider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] });
const tracer = provider.getTracer('query-spans-test');
let orm: Orm;

beforeAll(async () => {
  // The process-wide context manager the services register when tracing is on (service-tracing.ts).
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  orm = await createOrm({ clientUrl: databaseUrl, schema, entities: [DeviceSchema], migrations: deviceMigrations, poolMax: 2, logger: () => undefined, onPool: (pool) => traceQueries(pool, tracer) });
  await migrateUp(orm, { log: () => undefined });
});

afterAll(async () => {
  await dropSchemas(orm, [schema]);
  await orm?.close(true);
  context.disable();
});

/** Runs `work` in a fresh parent span; the spans it made, and the parent's id. */
async function underSpan(work: () => Promise<unknown>) {
  exporter.reset();
  const parentId = await tracer.startActiveSpan('parent', async (span) => {
    try {
      await work().catch(() => undefined);
    } finally {
      span.end();
    }
    return span.spanContext().spanId;
  });
  return { parentId, spans: exporter.getFinishedSpans().filter((s) => s.name !== 'parent') };
}

describe('query spans', () => {
  it('makes a child span per statement with no value in its text, although MikroORM inlines them', async () => {
    const secret = 'sk_sandbox_inlined0value';
    const { parentId, spans } = await underSpan(() => orm.em.fork().execute(`select name from ${schema}.device where name = ? and odometer_km > ?`, [secret, 12.5]));
    expect(spans).toHaveLength(1);
    const [span] = spans;
    expect(span!.name).toBe(`SELECT ${schema}.device`);
    expect(span!.parentSpanContext?.spanId).toBe(parentId);
    expect(span!.attributes).toMatchObject({ 'db.system.name': 'postgresql', 'db.namespace': new URL(databaseUrl).pathname.slice(1), 'db.operation.name': 'SELECT', 'db.query.text': `select name from ${schema}.device where name = ? and odometer_km > ?`, 'db.response.returned_rows': 0 });
    expect(JSON.stringify(span!.attributes)).not.toContain(secret);
    expect(JSON.stringify(span!.attributes)).not.toContain('12.5');
  });

  it('shows a transaction as BEGIN, its statements and COMMIT', async () => {
    const { spans } = await underSpan(() =>
      orm.em.fork().transactional((em) => em.execute(`insert into ${schema}.device (id, name, seen_at) values (gen_random_uuid(), ?, now())`, ['truck 7'])),
    );
    expect(spans.map((s) => s.name)).toEqual(['BEGIN', `INSERT ${schema}.device`, 'COMMIT']);
  });

  it('ends a COPY span when the stream finishes', async () => {
    const pool = (await orm.em.getConnection().getNativeClient()) as unknown as { connect(): Promise<PgClient & { release(): void }> };
    const { spans } = await underSpan(async () => {
      const client = await pool.connect();
      try {
        const rows = Readable.from([`00000000-0000-4000-8000-000000000001\tcopied\t2026-01-01T00:00:00Z\n`]);
        await pipeline(rows, client.query(copyFrom(`copy ${schema}.device (id, name, seen_at) from stdin`)) as NodeJS.WritableStream);
      } finally {
        client.release();
      }
    });
    expect(spans.map((s) => [s.name, s.status.code])).toEqual([[`COPY ${schema}.device`, SpanStatusCode.UNSET]]);
  });

  it('records a failing statement with its SQLSTATE, never its message', async () => {
    const { spans } = await underSpan(() => orm.em.fork().execute(`select * from ${schema}.no_such_table where v = 'x'`));
    expect(spans.map((s) => [s.name, s.status.code, s.attributes['db.response.status_code']])).toEqual([[`SELECT ${schema}.no_such_table`, SpanStatusCode.ERROR, '42P01']]);
    expect(spans[0]!.events).toEqual([]);
  });

  it('makes no span for a statement outside any span', async () => {
    exporter.reset();
    await orm.em.fork().execute('select 1');
    expect(trace.getActiveSpan()).toBeUndefined();
    expect(exporter.getFinishedSpans()).toEqual([]);
  });
});
