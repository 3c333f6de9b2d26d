/**
 * The internal-consumer contract (issue 11): the example consumer of examples/fault-consumer — a
 * durable JetStream consumer on the transition subjects, built on the plain NATS client as an
 * outside team would — against a real gateway, directory and fault-feed:
 * - it receives the same transitions as the HTTP feed (ids, sequences, kinds, occurrences), with
 *   the CloudEvents attributes;
 * - it survives its own restart without losing or duplicating one: transitions committed while it
 *   is down arrive after the restart, and one it had applied but not acknowledged when it was
 *   killed is redelivered and dropped by its checkpoint;
 * - it replays the whole stream from its start.
 * Mutation tried: removing the checkpoint comparison (`transition.sequence > last`) in
 * fault-consumer.js makes the redelivered transition arrive twice and the restart case fails.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Namespace, STREAMS, type FaultSnapshotV1, type FaultTransitionConsumerV1 } from '@switchyard/messaging';
import { pollUntil, sleep } from '@switchyard/testing';
import { MemoryCheckpoint, replayFaultTransitions, startFaultConsumer, type FaultCloudEvent } from '@switchyard/example-fault-consumer';
import { drainFeed, faultConnection, ingestFaults as ingestBatch, type FaultEvent } from './faults-fixture.js';
import { startTestGateway, type TestGateway } from './support.js';

const at = (minute: number) => new Date(Date.UTC(2026, 10, 21, 9, minute)).toISOString();
const snapshot = (vehicle: string, minute: number, keys: string[]): FaultSnapshotV1 => ({
  model: 'complete_snapshot',
  provider: 'motive',
  vehicleSourceId: vehicle,
  observedAt: at(minute),
  active: keys.map((key) => ({ faultKey: `obdii:${key}`, code: key, description: null })),
  fetchedAt: at(minute),
});

describe('example fault consumer (examples/fault-consumer)', () => {
  let gw: TestGateway;
  let connectionId: string;
  let headers: Record<string, string>;
  let ns: Namespace;
  beforeAll(async () => {
    gw = await startTestGateway({ directory: true, faultFeed: true });
    ns = new Namespace(gw.namespace);
    ({ connectionId, key: { headers } } = await faultConnection(gw, 'motive'));
  }, 60_000);
  afterAll(() => gw?.close());

  const ingestFaults = (records: FaultSnapshotV1[]) => ingestBatch(gw, connectionId, 'motive', records);
  const httpFeed = async (): Promise<FaultEvent[]> => (await drainFeed(gw, connectionId, headers, undefined, 3)).events;

  const options = () => ({ servers: gw.natsUrl, stream: ns.stream(STREAMS.FAULTS.name), subjects: ns.subject(`fleet.faults.${connectionId}.>`) });
  const view = (t: FaultTransitionConsumerV1) => [t.transitionId, t.sequence, t.kind, t.occurrenceId];
  const viewHttp = (e: FaultEvent) => [e.id, e.sequence, e.kind, e.occurrence_id];

  it('receives what the HTTP feed serves, survives a restart and a kill without loss or duplicates, and replays from the start', async () => {
    const received: FaultTransitionConsumerV1[] = [];
    const events: FaultCloudEvent[] = [];
    const checkpoint = new MemoryCheckpoint();
    let hold: ((release: () => void) => void) | undefined;
    const handle = async (t: FaultTransitionConsumerV1, event: FaultCloudEvent) => {
      received.push(t);
      events.push(event);
      if (hold) await new Promise<void>((release) => hold!(release));
    };
    const first = await startFaultConsumer({ ...options(), durable: 'ops-cases', checkpoint, handle, ackWaitMs: 1_500 });
    await ingestFaults([snapshot('t1', 0, ['P0420', 'P0171'])]);
    await ingestFaults([snapshot('t1', 1, ['P0171'])]);
    await pollUntil(() => received.length >= 3 || undefined, { timeoutMs: 10_000, description: 'first three transitions' });
    expect(received.map(view)).toEqual((await httpFeed()).map(viewHttp));
    expect(events[0]).toMatchObject({ specversion: '1.0', id: received[0]!.transitionId, type: 'com.switchyard.fleet.fault.opened.v1', subject: received[0]!.vehicleId, source: `/switchyard/fault-feed/connections/${connectionId}`, datacontenttype: 'application/json' });

    // Down for a while: two transitions are committed meanwhile; the restart resumes with exactly them.
    await first.stop();
    await ingestFaults([snapshot('t1', 2, [])]);
    await ingestFaults([snapshot('t2', 2, ['P0300'])]);
    await sleep(300);
    expect(received).toHaveLength(3);
    const second = await startFaultConsumer({ ...options(), durable: 'ops-cases', checkpoint, handle, ackWaitMs: 1_500 });
    await pollUntil(() => received.length >= 5 || undefined, { timeoutMs: 10_000, description: 'the two committed while down' });

    // Killed while handling (applied, checkpointed, never acknowledged): redelivered to the next start and dropped.
    let released: (() => void) | undefined;
    hold = (release) => {
      released = release;
    };
    await ingestFaults([snapshot('t2', 3, ['P0300', 'P0128'])]);
    await pollUntil(() => released !== undefined || undefined, { timeoutMs: 10_000, description: 'the sixth in hand' });
    hold = undefined;
    await second.kill().then(() => undefined, () => undefined);
    released!();
    const third = await startFaultConsumer({ ...options(), durable: 'ops-cases', checkpoint, handle, ackWaitMs: 1_500 });
    await ingestFaults([snapshot('t2', 4, ['P0128'])]);
    await pollUntil(() => received.length >= 7 || undefined, { timeoutMs: 15_000, description: 'the seventh after the kill' });
    await sleep(2_000); // past the ack wait: a duplicate would have arrived by now
    await third.stop();
    const feed = await httpFeed();
    expect(feed).toHaveLength(7);
    expect(received.map(view)).toEqual(feed.map(viewHttp));

    // Replay from the start of the stream: the same seven, in order.
    const replayed: FaultTransitionConsumerV1[] = [];
    const count = await replayFaultTransitions({ ...options(), handle: (t) => replayed.push(t) });
    expect(count).toBe(7);
    expect(replayed.map(view)).toEqual(feed.map(viewHttp));
  });
});
