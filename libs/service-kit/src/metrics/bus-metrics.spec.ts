import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { ALL_STREAMS, createBus, PoisonMessage, RpcError, silentLogger, subjectFor, type ConsumerDefinition, type EventDefinition, type MessageBus, type RpcDefinition } from '@switchyard/messaging';
import { z } from 'zod';
import { MeasuredBus } from './bus-metrics.js';
import { ServiceMetrics } from './service-metrics.js';

const echo: RpcDefinition = { subject: 'metrics.test.echo', request: z.object({ text: z.string() }).strict(), response: z.object({ text: z.string() }).strict() };
const event: EventDefinition = { subject: 'events.metricstest.*', stream: 'EVENTS', schema: z.object({ n: z.number() }).strict(), version: 1 };
const consumer: ConsumerDefinition = { durable: 'metrics_test', event, filterSubject: 'events.metricstest.a', ackWaitMs: 2_000, maxDeliver: 3, maxAckPending: 4, backoff: { initialMs: 10, maxMs: 20 } };

/** The samples of `name`, each as `name{labels sorted} value` (prom-client orders default labels differently per type). */
const lines = (text: string, name: string) =>
  text
    .split('\n')
    .filter((l) => l.startsWith(`${name}{`))
    .map((l) => {
      const [, labels = '', value] = /^[^{]+\{(.*)\} (.*)$/.exec(l) ?? [];
      return `${name}{${labels.split(',').sort().join(',')}} ${value}`;
    })
    .sort();
const eventually = async (check: () => Promise<void>) => {
  for (let i = 0; ; i++) {
    try {
      return await check();
    } catch (error) {
      if (i > 100) throw error;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }
};

describe('MeasuredBus', () => {
  let inner: MessageBus;
  let metrics: ServiceMetrics;
  let bus: MeasuredBus;

  beforeEach(async () => {
    inner = await createBus({ kind: 'in-process', namespace: `metrics${Date.now()}`, logger: silentLogger, requestTimeoutMs: 200 });
    await inner.ensureStreams(ALL_STREAMS);
    metrics = new ServiceMetrics('gateway', { defaultMetrics: false });
    bus = new MeasuredBus(inner, metrics, { consumerStateTtlMs: 0 });
  });
  afterEach(() => inner.close());

  it('counts requests on both ends by subject and outcome — ok, the RpcError code, no responders — and times them', async () => {
    await expect(bus.request(echo, { text: 'x' })).rejects.toThrow('no_responders');
    const served = bus.serve(echo, async (request) => {
      if ((request as { text: string }).text === 'bad') throw new RpcError('not_found');
      return request as { text: string };
    });
    await bus.request(echo, { text: 'x' });
    await expect(bus.request(echo, { text: 'bad' })).rejects.toThrow('not_found');
    const text = await metrics.text();
    expect(lines(text, 'switchyard_rpc_client_requests_total')).toEqual([
      'switchyard_rpc_client_requests_total{outcome="no_responders",service="gateway",subject="metrics.test.echo"} 1',
      'switchyard_rpc_client_requests_total{outcome="not_found",service="gateway",subject="metrics.test.echo"} 1',
      'switchyard_rpc_client_requests_total{outcome="ok",service="gateway",subject="metrics.test.echo"} 1',
    ]);
    expect(lines(text, 'switchyard_rpc_server_requests_total')).toEqual([
      'switchyard_rpc_server_requests_total{outcome="not_found",service="gateway",subject="metrics.test.echo"} 1',
      'switchyard_rpc_server_requests_total{outcome="ok",service="gateway",subject="metrics.test.echo"} 1',
    ]);
    expect(lines(text, 'switchyard_rpc_server_duration_seconds_count')).toEqual(['switchyard_rpc_server_duration_seconds_count{service="gateway",subject="metrics.test.echo"} 2']);
    expect(lines(text, 'switchyard_rpc_client_duration_seconds_count')).toEqual(['switchyard_rpc_client_duration_seconds_count{service="gateway",subject="metrics.test.echo"} 3']);
    await served.drain();
  });

  it("counts a durable's deliveries, redeliveries, acks, naks and dead letters by reason, and reads its backlog at scrape", async () => {
    const publish = (n: number) => bus.publish(event, subjectFor(event.subject, 'a'), { n }, { msgId: `m${n}` });
    for (const n of [1, 2, 3]) await publish(n);
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    const sub = await bus.consume(consumer, async (d) => {
      const { n } = d.payload as { n: number };
      if (n === 1 && d.deliveryCount === 1) throw new Error('retry once');
      if (n === 2) throw new PoisonMessage('metrics_test_poison');
      if (n === 4) await held;
    });
    await eventually(async () => expect(lines(await metrics.text(), 'switchyard_consumer_acked_total')).toEqual(['switchyard_consumer_acked_total{durable="metrics_test",service="gateway"} 2']));
    await publish(4);
    await eventually(async () => expect(lines(await metrics.text(), 'switchyard_consumer_delivered_total')).toEqual(['switchyard_consumer_delivered_total{durable="metrics_test",service="gateway"} 5']));
    const text = await metrics.text();
    expect(lines(text, 'switchyard_consumer_ack_pending_messages')).toEqual(['switchyard_consumer_ack_pending_messages{durable="metrics_test",service="gateway"} 1']);
    expect(lines(text, 'switchyard_consumer_redelivered_total')).toEqual(['switchyard_consumer_redelivered_total{durable="metrics_test",service="gateway"} 1']);
    expect(lines(text, 'switchyard_consumer_naks_total')).toEqual(['switchyard_consumer_naks_total{durable="metrics_test",service="gateway"} 1']);
    expect(lines(text, 'switchyard_dead_letters_total')).toEqual(['switchyard_dead_letters_total{durable="metrics_test",reason="metrics_test_poison",service="gateway"} 1']);
    expect(lines(text, 'switchyard_consumer_pending_messages')).toEqual(['switchyard_consumer_pending_messages{durable="metrics_test",service="gateway"} 0']);
    release();
    await sub.drain();
  });
});
