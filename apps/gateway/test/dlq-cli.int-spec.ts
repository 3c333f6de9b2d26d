/**
 * `npm run dlq` (issue 14, item 1; discard: issue 30): the operator's list, inspect, replay and discard of dead letters through
 * the CLI's entry point on the real NATS, in a namespace of its own: `list` prints no payload,
 * `inspect` prints it, `replay --all` with filters replays what they select, a second replay prints
 * `not_found`, and bad arguments are refused before NATS is opened; beside an embedded `npm start`
 * it says why it cannot reach the in-process bus.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ALL_STREAMS, createBus, EVENTS, PoisonMessage, subjectFor, type MessageBus, type Subscription } from '@switchyard/messaging';
import { writeLocalStack } from '@switchyard/service-kit';
import { deleteNamespaceStreams, pollUntil, resolveTestServices, uniqueNamespace } from '@switchyard/testing';
import { runDlqCli } from '../src/cli/dlq.js';

let bus: MessageBus;
let sub: Subscription;
let natsUrl: string;
const namespace = uniqueNamespace('dlq');
const seen: string[] = [];
let accept = false;

async function cli(...args: string[]): Promise<Record<string, unknown>[]> {
  const lines: string[] = [];
  await runDlqCli(args, (line) => lines.push(line), { NATS_URL: natsUrl, NATS_NAMESPACE: namespace });
  return lines.map((line) => JSON.parse(line) as Record<string, unknown>);
}

beforeAll(async () => {
  natsUrl = (await resolveTestServices()).natsUrl;
  bus = await createBus({ kind: 'jetstream', servers: natsUrl, name: 'dlq-cli-test', namespace });
  await bus.ensureStreams(ALL_STREAMS);
  sub = await bus.consume({ durable: 'dlq-cli', event: EVENTS.receipt, ackWaitMs: 5_000, maxDeliver: 2, maxAckPending: 4 }, async ({ payload }) => {
    if (!accept) throw new PoisonMessage('test_refused');
    seen.push(payload.batchId);
  });
});

afterAll(async () => {
  await sub?.drain();
  await bus?.close();
  await deleteNamespaceStreams(natsUrl, namespace);
});

describe('npm run dlq', () => {
  it('lists without payloads, inspects, replays by filter once', async () => {
    const batchId = randomUUID();
    const receipt = { batchId, connectionId: randomUUID(), syncId: 'sync_01JD3Y7Q8ZK5V2N4R6T8W0X2Y4', unitId: '1', fencingToken: '1', context: 'directory' as const, kind: 'vehicles' as const, status: 'committed' as const, reason: null, records: 0, final: true, committedAt: new Date().toISOString() };
    await bus.publish(EVENTS.receipt, subjectFor(EVENTS.receipt.subject, receipt.syncId, receipt.unitId), receipt, { msgId: `receipt:${batchId}` });
    const listed = await pollUntil(async () => {
      const lines = await cli('list', '--reason', 'test_refused');
      return lines.length === 1 ? lines : undefined;
    }, { timeoutMs: 10_000 });
    expect(listed[0]).toMatchObject({ consumer: 'dlq-cli', reason: 'test_refused', originalSubject: subjectFor(EVENTS.receipt.subject, receipt.syncId, receipt.unitId) });
    expect(listed[0]).not.toHaveProperty('payload');
    const seq = String(listed[0]!.seq);
    const [inspected] = await cli('inspect', '--seq', seq);
    expect(JSON.parse((inspected!.envelope as { payload: string }).payload)).toMatchObject({ batchId });
    expect(await cli('list', '--subject', 'events.>')).toEqual([]);

    accept = true;
    expect(await cli('replay', '--all', '--subject', 'receipt.>', '--from', '2020-01-01T00:00:00Z')).toEqual([{ seq: Number(seq), outcome: 'replayed', subject: listed[0]!.originalSubject }]);
    await pollUntil(() => seen.includes(batchId), { timeoutMs: 10_000 });
    expect(await cli('replay', '--seq', seq)).toEqual([{ seq: Number(seq), outcome: 'not_found' }]);
    expect(await cli('list')).toEqual([]);
  }, 30_000);

  it('discards one by sequence without publishing it; a second discard prints not_found', async () => {
    accept = false;
    const batchId = randomUUID();
    const receipt = { batchId, connectionId: randomUUID(), syncId: 'sync_01JD3Y7Q8ZK5V2N4R6T8W0X2Y5', unitId: '2', fencingToken: '1', context: 'directory' as const, kind: 'vehicles' as const, status: 'committed' as const, reason: null, records: 0, final: true, committedAt: new Date().toISOString() };
    await bus.publish(EVENTS.receipt, subjectFor(EVENTS.receipt.subject, receipt.syncId, receipt.unitId), receipt, { msgId: `receipt:${batchId}` });
    const [listed] = await pollUntil(async () => {
      const lines = await cli('list', '--reason', 'test_refused');
      return lines.length === 1 ? lines : undefined;
    }, { timeoutMs: 10_000 });
    accept = true;
    const seq = String(listed!.seq);
    expect(await cli('discard', '--seq', seq)).toEqual([{ seq: Number(seq), outcome: 'discarded', subject: listed!.originalSubject }]);
    expect(await cli('discard', '--seq', seq)).toEqual([{ seq: Number(seq), outcome: 'not_found' }]);
    expect(await cli('list')).toEqual([]);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(seen).not.toContain(batchId);
  }, 30_000);

  it('refuses bad arguments before opening NATS', async () => {
    await expect(cli('replay')).rejects.toThrow(/exactly one of --seq/);
    await expect(cli('discard')).rejects.toThrow(/discard needs exactly one of --seq/);
    await expect(cli('inspect')).rejects.toThrow(/--seq/);
    await expect(cli('list', '--from', 'yesterday')).rejects.toThrow(/RFC 3339/);
    await expect(cli('purge')).rejects.toThrow(/usage/);
  });

  // mutation: drop the inProcessBus check in dlq.ts → it lists whatever the default NATS holds instead of saying why it cannot.
  it("beside an embedded npm start (in-process bus, no NATS_URL) says the dead letters live in the launcher's process", async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'sy-dlq-'));
    try {
      writeLocalStack(dataDir, { databaseUrl: 'postgres://postgres@127.0.0.1:54329/switchyard', embeddedDatabase: true, natsUrl: null, natsNamespace: '', pid: 1, startedAt: new Date().toISOString() });
      await expect(runDlqCli(['list'], () => undefined, { SWITCHYARD_DATA_DIR: dataDir })).rejects.toThrow(/^npm start runs the in-process bus .*no other process can read them/);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
