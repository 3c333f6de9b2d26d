/**
 * @switchyard/providers — provider adapters (plain TypeScript: no Nest, ORM or NATS): the adapter
 * interface, the shared HTTP client (budget, retries, Retry-After), reason-code errors and the
 * capability descriptors. Per-provider clients and mappers live in samsara/, motive/, geotab/.
 */
export * from './adapter.js';
export * from './capabilities/index.js';
export * from './errors.js';
export * from './http/egress.js';
export { refusedAddress } from './http/egress-address.js';
export * from './http/parse.js';
export * from './http/provider-http-client.js';
export * from './http/provider-call-observer.js';
export * from './http/provider-call-spans.js';
export * from './http/request-budget.js';
export * from './http/retry-after.js';
export * from './samsara/index.js';
export * from './motive/index.js';
export * from './geotab/index.js';
export * from './pages.js';
