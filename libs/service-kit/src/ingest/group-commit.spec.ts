/**
 * The group committer's rules without a database (its transaction and connection lookup replaced
 * through the seams): a lone delivery is committed at once; deliveries that arrive while a group
 * commits go together into the next one, up to the limits, a repeated batch id waits for the next
 * group; a failing group is committed again one by one so only the bad batch fails, but an outage
 * fails every member at once; a delivery whose connection check fails is answered alone.
 * The real transaction (one COPY, one rollup rebuild, the ledger statements) is covered by
 * apps/telemetry-ingest/test/ingest-telemetry.int-spec.ts.
 */
import { describe, expect, it } from '@jest/globals';
import { BusUnavailableError, type ConnectionConfigV1, type Delivery, RetryLater, type TelemetryBatchV1 } from '@switchyard/messaging';
import type { ServiceRuntime } from '../runtime.js';
import { DEFAULT_GROUP_LIMITS, IngestGroupCommitter, type GroupLimits } from './group-commit.js';
import type { AdmittedDelivery, IngestOutcome } from './ingest-pipeline.js';

const CONNECTION = '0b9f3c1e-2f4a-4d7e-9b1c-3a2e5f6d7c8b';
const config = { connectionId: CONNECTION, provider: 'samsara', status: 'active' } as ConnectionConfigV1;

function delivery(batchId: string, { records = 1, connectionId = CONNECTION, deliveryCount = 1 } = {}): Delivery<TelemetryBatchV1> {
  const payload = { batchId, connectionId, provider: 'samsara', kind: 'observations', syncId: null, unitId: null, fencingToken: null, fetchedAt: '2026-11-20T12:00:00.000Z', providerCursor: null, final: false, records: Array.from({ length: records }) } as unknown as TelemetryBatchV1;
  return { payload, subject: `ingest.telemetry.${connectionId}`, msgId: batchId, headers: {}, deliveryCount, inProgress: () => undefined };
}

const deferred = () => {
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  return { gate, release };
};

/** A committer whose transaction records each group's batch ids, waits on `gates` in turn, and fails as `fail` says. */
function committer(limits: Partial<GroupLimits> = {}, fail: (ids: string[]) => Error | undefined = () => undefined) {
  const groups: string[][] = [];
  const gates: Promise<void>[] = [];
  const warnings: unknown[] = [];
  const runtime = { logger: { warn: (o: unknown) => warnings.push(o) } } as unknown as ServiceRuntime;
  const c = new IngestGroupCommitter<TelemetryBatchV1>(
    { runtime, context: 'telemetry-ingest', apply: async () => 0 },
    { ...DEFAULT_GROUP_LIMITS, ...limits },
    {
      configs: async (deliveries) => new Map(deliveries.filter((d) => d.payload.connectionId === CONNECTION).map(() => [CONNECTION, config])),
      commit: async (group: readonly AdmittedDelivery<TelemetryBatchV1>[]): Promise<IngestOutcome[]> => {
        const ids = group.map((g) => g.delivery.payload.batchId);
        groups.push(ids);
        await gates.shift();
        const error = fail(ids);
        if (error) throw error;
        return ids.map(() => ({ duplicate: false, receipt: null, committed: true }));
      },
    },
  );
  return { c, groups, gates, warnings };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('IngestGroupCommitter', () => {
  // mutation: mayStart() true whenever a slot is free → b starts a second group of one: [[a],[b],[c,d]] — this fails.
  it('commits a lone delivery at once and the deliveries that wait meanwhile as one group', async () => {
    const { c, groups, gates } = committer();
    const first = deferred();
    gates.push(first.gate);
    const a = c.submit(delivery('a'));
    await settle();
    expect(groups).toEqual([['a']]);
    const rest = ['b', 'c', 'd'].map((id) => c.submit(delivery(id)));
    await settle();
    expect(groups).toEqual([['a']]); // a second group waits for half a group (16) while one commits
    first.release();
    await Promise.all([a, ...rest]);
    expect(groups).toEqual([['a'], ['b', 'c', 'd']]);
  });

  it('keeps a group within maxBatches and maxRecords, and starts a second one once half a group waits', async () => {
    const { c, groups, gates } = committer({ maxBatches: 4, maxRecords: 10 });
    const [first, second] = [deferred(), deferred()];
    gates.push(first.gate, second.gate);
    const all = [c.submit(delivery('a'))];
    // 6 records waiting ≥ half of maxRecords 10: a second group starts beside the first.
    all.push(c.submit(delivery('b', { records: 6 })));
    all.push(...['c', 'd', 'e', 'f', 'g', 'h'].map((id, i) => c.submit(delivery(id, { records: i === 0 ? 6 : 1 }))));
    await settle();
    expect(groups).toEqual([['a'], ['b']]); // two at once: the rest wait
    first.release();
    second.release();
    await Promise.all(all);
    // c + d + e + f = 9 records, then maxBatches 4 closes the group.
    expect(groups).toEqual([['a'], ['b'], ['c', 'd', 'e', 'f'], ['g', 'h']]);
  });

  it('leaves a repeated batch id for the next group', async () => {
    const { c, groups, gates } = committer();
    const first = deferred();
    gates.push(first.gate);
    const all = [c.submit(delivery('a')), c.submit(delivery('b')), c.submit(delivery('b')), c.submit(delivery('c'))];
    first.release();
    await Promise.all(all);
    expect(groups).toEqual([['a'], ['b', 'c'], ['b']]);
  });

  // mutation: the one-by-one retry removed (every member rejected with the group's error) → b and d reject: this fails.
  it('commits the members of a failed group one by one, so only the bad batch fails', async () => {
    const { c, groups, gates, warnings } = committer({}, (ids) => (ids.includes('bad') ? new Error('record_provider_mismatch') : undefined));
    const first = deferred();
    gates.push(first.gate);
    const a = c.submit(delivery('a'));
    const rest = ['b', 'bad', 'd'].map((id) => c.submit(delivery(id)));
    first.release();
    const settled = await Promise.allSettled([a, ...rest]);
    expect(settled.map((s) => s.status)).toEqual(['fulfilled', 'fulfilled', 'rejected', 'fulfilled']);
    expect(groups).toEqual([['a'], ['b', 'bad', 'd'], ['b'], ['bad'], ['d']]);
    expect(warnings).toHaveLength(1);
  });

  it('fails every member of a group at once when the database or the bus is out (no one-by-one retries)', async () => {
    const { c, groups, gates } = committer({}, (ids) => (ids.length > 1 ? new BusUnavailableError('receipts', 'connection_closed') : undefined));
    const first = deferred();
    gates.push(first.gate);
    const a = c.submit(delivery('a'));
    const rest = ['b', 'c'].map((id) => c.submit(delivery(id)));
    first.release();
    const settled = await Promise.allSettled([a, ...rest]);
    expect(settled.map((s) => s.status)).toEqual(['fulfilled', 'rejected', 'rejected']);
    expect(groups).toEqual([['a'], ['b', 'c']]);
  });

  it("answers a delivery whose connection is not known yet alone, and commits the others", async () => {
    const { c, groups, gates } = committer();
    const first = deferred();
    gates.push(first.gate);
    const a = c.submit(delivery('a'));
    const unknown = c.submit(delivery('u', { connectionId: '7e57c0de-0000-4000-8000-000000000001' }));
    const b = c.submit(delivery('b'));
    first.release();
    await expect(unknown).rejects.toBeInstanceOf(RetryLater);
    await Promise.all([a, b]);
    expect(groups).toEqual([['a'], ['b']]);
  });
});
