/**
 * The gateway's schema on the real PostgreSQL (isolated schema): every migration applied, exactly
 * the gateway's tables, and no drift between what the migrations built and the MikroORM entities —
 * the same check the other contexts run in the shared context suite. The migrations are the
 * deployed truth; an entity that disagrees with them is fixed in the entity.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { MIGRATIONS_TABLE, schemaDrift } from '@switchyard/persistence';
import { gatewayService } from '../src/index.js';
import { startTestGateway, type TestGateway } from './support.js';

let gw: TestGateway;

beforeAll(async () => {
  gw = await startTestGateway();
});

afterAll(async () => {
  await gw?.close();
});

describe('gateway schema', () => {
  it('applies every migration to its isolated schema and leaves no drift from its entities', async () => {
    const em = gw.service.runtime.orm.em.fork();
    const schema = gw.schemas.gateway;
    const applied = await em.execute<{ name: string }[]>(`select name from "${schema}"."${MIGRATIONS_TABLE}" order by id`);
    expect(applied.map((row) => row.name)).toEqual(gatewayService.migrations.map((migration) => migration.name));
    const found = await em.execute<{ table_name: string }[]>(
      `select table_name from information_schema.tables where table_schema = ? and table_name <> ? order by table_name`,
      [schema, MIGRATIONS_TABLE],
    );
    expect(found.map((row) => row.table_name)).toEqual(['application', 'application_grant', 'connect_session', 'connection', 'connection_token', 'console_session', 'consumer_grant', 'consumer_key', 'geotab_binding', 'operator_credential', 'outbox', 'request_rate_bucket', 'vehicle_visibility', 'webhook_attempt', 'webhook_endpoint', 'webhook_event', 'webhook_message']);
    expect(await schemaDrift(gw.service.runtime.orm)).toBe('');
  });
});
