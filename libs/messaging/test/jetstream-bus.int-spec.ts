import { afterAll } from '@jest/globals';
import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { createBus, Namespace } from '../src/index.js';
import { runBusContract } from './bus.contract.js';
import { uniqueNamespace } from './test-helpers.js';

const servers = process.env['NATS_URL'] ?? 'nats://127.0.0.1:4222';
const namespace = uniqueNamespace();

runBusContract('jetstream', (options) => createBus({ kind: 'jetstream', servers, name: `messaging-contract-${namespace}`, namespace, logger: options?.logger }));

afterAll(async () => {
  // Delete every stream of this run (their consumers go with them).
  const prefix = new Namespace(namespace).stream('X').slice(0, -1);
  const nc = await connect({ servers });
  try {
    const jsm = await jetstreamManager(nc);
    for await (const name of jsm.streams.names()) if (name.startsWith(prefix)) await jsm.streams.delete(name);
  } finally {
    await nc.close();
  }
});
