/**
 * Reads a durable consumer as the NATS server holds it, for specs that check what a service
 * provisioned (e.g. the ingest durable's ack wait, INGEST_ACK_WAIT_MS). Own connection, closed
 * before returning.
 */
import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { Namespace } from '@switchyard/messaging';

export interface DurableState {
  readonly ackWaitMs: number;
  /** When the server created the consumer: unchanged by an update, new after a re-create. */
  readonly created: string;
}

/** The live state of `durable` on `stream` (logical names, resolved in `namespace`). */
export async function durableState(natsUrl: string, namespace: string, stream: string, durable: string): Promise<DurableState> {
  const ns = new Namespace(namespace);
  const nc = await connect({ servers: natsUrl, name: 'test-inspect' });
  try {
    const info = await (await jetstreamManager(nc)).consumers.info(ns.stream(stream), ns.durable(durable));
    if (info.config.ack_wait === undefined) throw new Error(`durable ${durable} reports no ack_wait`);
    return { ackWaitMs: info.config.ack_wait / 1_000_000, created: info.created };
  } finally {
    await nc.close();
  }
}
