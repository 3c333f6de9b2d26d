// Public surface of @switchyard/providers: capability descriptors now; adapters (HTTP clients, payload schemas, normalizers) follow.
export * from './capabilities/index.js';
