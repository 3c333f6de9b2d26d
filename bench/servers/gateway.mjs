/**
 * The real gateway as a benchmark server (run in a child by lib/child-server.mjs): `startGateway`
 * from the built @switchyard/gateway with its production defaults — MikroORM pool of 10, pino at
 * `info` writing one access line per request to stdout (a log file here), metrics, request ids —
 * on the fixture's isolated schemas and NATS namespace (lib/gateway-fixture.mjs), listening on
 * 127.0.0.1 at a free port. Migrations were applied by the fixture; the start-up check finds none.
 */
import { createBus } from '@switchyard/messaging';
import { startGateway } from '@switchyard/gateway';

export async function start(fixture) {
  const bus = await createBus({ kind: 'jetstream', servers: fixture.natsUrl, name: 'bench-gateway', namespace: fixture.namespace });
  let service;
  try {
    service = await startGateway({
      databaseUrl: fixture.databaseUrl,
      bus,
      environment: 'sandbox',
      schema: fixture.schemas.gateway,
      allServiceSchemas: Object.values(fixture.schemas),
      http: { port: 0, host: '127.0.0.1' },
      gatewaySettings: { masterKey: fixture.masterKey, cursorSecret: fixture.cursorSecret },
    });
  } catch (error) {
    await bus.close();
    throw error;
  }
  return {
    url: service.url,
    async close() {
      await service.close();
      await bus.close();
    },
  };
}
