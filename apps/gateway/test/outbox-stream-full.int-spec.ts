/**
 * A full stream and the gateway's outbox relay (decision 0026): with EVENTS at its byte limit the
 * stream refuses the relay's publish (`BusUnavailableError` `stream_full`), the relay keeps the row
 * unpublished and tries again, nothing the stream already stored is dropped; once the limit is
 * raised (the next start with a bigger NATS_STREAM_MAX_BYTES_EVENTS, here `ensureStreams`) the row
 * goes out. Who publishes — the relay's own poll or a flush — does not matter: the test watches the
 * row, the relay's log and the stream.
 * The backlog is on /metrics meanwhile (issue 27, decision 0041): `switchyard_outbox_backlog_messages`
 * of the gateway's outbox is 1 while the row waits and 0 once it is out.
 * Mutation tried: the streams' `discard` switched to 'old' in libs/messaging subjects.ts — the row is
 * published at once and the first configuration is gone from EVENTS (messages 1, first_seq 2).
 * Mutation tried: PollingOutboxRelay registering no backlog source → the family has no sample, fails.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { jetstreamManager, type JetStreamManager } from '@nats-io/jetstream';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { ALL_STREAMS, Namespace, STREAMS, withStreamLimits } from '@switchyard/messaging';
import { connectionConfig, pollUntil } from '@switchyard/testing';
import { logLines, startTestGateway, type TestGateway } from './support.js';

let gw: TestGateway;
let nc: NatsConnection;
let jsm: JetStreamManager;

beforeAll(async () => {
  gw = await startTestGateway();
  nc = await connect({ servers: gw.natsUrl });
  jsm = await jetstreamManager(nc);
});

afterAll(async () => {
  await nc?.close();
  await gw?.close();
});

describe('outbox relay and a full EVENTS stream', () => {
  it('keeps the row unpublished while the stream refuses it, drops nothing stored, and publishes it once there is room', async () => {
    const em = gw.service.runtime.orm.em.fork();
    const table = `"${gw.schemas.gateway}"."outbox"`;
    const stream = new Namespace(gw.namespace).stream(STREAMS.EVENTS.name);
    const insert = async () => {
      const payload = connectionConfig();
      const msgId = `stream-full-${payload.connectionId}`;
      await em.execute(`insert into ${table} (subject, msg_id, payload) values (?, ?, ?::jsonb)`, [`events.connection.config.${payload.connectionId}`, msgId, JSON.stringify(payload)]);
      return msgId;
    };
    /** The gateway outbox's backlog as /metrics serves it (undefined: no sample). */
    const backlog = async () => {
      const line = (await gw.service.runtime.metrics.text()).split('\n').find((l) => l.startsWith('switchyard_outbox_backlog_messages{') && l.includes('outbox="outbox"'));
      return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(' ') + 1));
    };
    const publishedAt = async (msgId: string) => (await em.execute<{ published_at: Date | null }[]>(`select published_at from ${table} where msg_id = ?`, [msgId]))[0]?.published_at ?? null;

    // One configuration goes out as usual.
    const first = await insert();
    await gw.flushOutbox();
    await pollUntil(() => publishedAt(first), { description: 'the first row published' });
    const before = await jsm.streams.info(stream);

    // EVENTS gets a limit just above what it stores: no room for a second configuration.
    const tiny = Math.ceil(before.state.bytes / 0.9) + 1;
    await gw.bus.ensureStreams(withStreamLimits({ EVENTS: tiny }));
    expect((await jsm.streams.info(stream)).config.max_bytes).toBe(tiny);

    const second = await insert();
    const refused = () => logLines(gw).filter((l) => l['msg'] === 'outbox relay: publish failed, will retry' && JSON.stringify(l['err']).includes('stream_full'));
    // Either the relay reports the refusal, or (without the limit's discard policy) it published the row.
    await gw.flushOutbox().catch(() => undefined);
    await pollUntil(async () => refused().length > 0 || (await publishedAt(second)), { description: 'a refused publish or the row published' });
    const full = await jsm.streams.info(stream);
    process.stdout.write(
      `[stream-limits] gateway outbox: EVENTS at max_bytes ${tiny} (stores ${full.state.bytes}): publish refused (stream_full) ${refused().length} time(s), row unpublished: ${(await publishedAt(second)) === null}, stored messages ${full.state.messages} (first seq ${full.state.first_seq})\n`,
    );
    expect(await publishedAt(second)).toBeNull();
    await pollUntil(async () => (await backlog()) === 1, { timeoutMs: 15_000, description: 'the waiting row on /metrics as the outbox backlog' });
    expect(full.state.messages).toBe(before.state.messages);
    expect(full.state.first_seq).toBe(before.state.first_seq);
    // The relay saw the bus's typed refusal, the same class as an unreachable NATS.
    expect(JSON.stringify(refused()[0]?.['err'])).toContain('BusUnavailableError');

    // A start with the default limit again: the relay's next pass publishes the row, nothing lost.
    await gw.bus.ensureStreams(ALL_STREAMS);
    await gw.flushOutbox().catch(() => undefined);
    await pollUntil(() => publishedAt(second), { description: 'the second row published after the limit was raised' });
    const after = await jsm.streams.info(stream);
    expect(after.state.messages).toBe(before.state.messages + 1);
    expect(after.state.first_seq).toBe(before.state.first_seq);
    await pollUntil(async () => (await backlog()) === 0, { timeoutMs: 15_000, description: 'an outbox backlog of 0 once the row is out' });
  });
});
