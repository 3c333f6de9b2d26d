/**
 * Removes the JetStream streams a test run created under its namespace (`<NS>_…`), so parallel and
 * repeated runs leave the shared NATS server as they found it.
 */
import { connect } from '@nats-io/transport-node';
import { jetstreamManager } from '@nats-io/jetstream';

export async function deleteNamespaceStreams(natsUrl: string, namespace: string): Promise<void> {
  if (!namespace) throw new Error('refusing to delete streams of the empty (production) namespace');
  const prefix = `${namespace.toUpperCase().replaceAll('-', '_')}_`;
  const nc = await connect({ servers: natsUrl, name: 'test-cleanup' });
  try {
    const jsm = await jetstreamManager(nc);
    const names: string[] = [];
    for await (const name of jsm.streams.names()) if (name.startsWith(prefix)) names.push(name);
    for (const name of names) await jsm.streams.delete(name);
  } finally {
    await nc.close();
  }
}
