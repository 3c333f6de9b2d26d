/**
 * The real gateway as a benchmark server (run in a child by lib/child-server.mjs): `startGateway`
 * from the built @switchyard/gateway with its production defaults — MikroORM pool of 10, pino at
 * `info` writing one access line per request to stdout (a log file here), metrics, request ids —
 * on the fixture's isolated schemas and NATS namespace (lib/gateway-fixture.mjs), listening on
 * 127.0.0.1 at a free port. Migrations were applied by the fixture; the start-up check finds none.
 * The start-up itself is context-service.mjs's, shared with the other services.
 */
export { start } from './context-service.mjs?service=gateway';
