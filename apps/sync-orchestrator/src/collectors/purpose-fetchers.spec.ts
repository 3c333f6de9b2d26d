import { describe, expect, it } from '@jest/globals';
import type { FaultSnapshot } from '@switchyard/domain';
import type { IngestBatchV1 } from '@switchyard/messaging';
import { capabilitiesFor, type Page, type ProviderAdapter, type SkippedRecord } from '@switchyard/providers';
import type { LeasedUnit } from '../db/repositories/unit-lease.repository.js';
import { groupIntoJobs } from './collector-jobs.js';
import { MAX_PAGES_PER_LISTING, runJob, type FetchContext } from './purpose-fetchers.js';

const CONNECTION = '0b9f3c1e-2f4a-4d7e-9b1c-3a2e5f6d7c8b';
const SYNC = 'sync_01JD3Y7Q8ZK5V2N4R6T8W0X2Y4';
const FETCHED = '2026-01-01T03:00:00.000Z';

function unit(id: string, purpose: LeasedUnit['purpose'], vehicle: string): LeasedUnit {
  return {
    unitId: id,
    syncId: SYNC,
    connectionId: CONNECTION,
    purpose,
    vehicleSourceId: vehicle,
    windowStart: null,
    windowEnd: null,
    attempt: 1,
    fencingToken: '3',
    providerCursor: null,
    leaseExpiresAt: '2026-01-01T00:01:00.000Z',
    signals: ['faults'],
    extendedTelemetry: false,
    passUnits: 2,
    trace: { correlationId: `sync:${SYNC}` },
  };
}

const snapshot = (vehicleSourceId: string): FaultSnapshot => ({
  model: 'complete_snapshot',
  provider: 'samsara',
  vehicleSourceId,
  observedAt: '2026-01-01T02:00:00.000Z',
  active: [],
  fetchedAt: FETCHED,
});

/** An adapter whose only answers are the given pages (by method); anything else throws. */
function adapterServing(pages: { faults?: Page<FaultSnapshot>[]; groups?: Page<never>[]; vehicles?: Page<never>[] }): ProviderAdapter {
  const next = <T>(list: Page<T>[] | undefined): Promise<Page<T>> => {
    const page = list?.shift();
    return page ? Promise.resolve(page) : Promise.reject(new Error('no page left'));
  };
  const refuse = () => Promise.reject(new Error('not asked for in this test'));
  return {
    provider: 'samsara',
    capabilities: capabilitiesFor('samsara'),
    vehicles: () => next(pages.vehicles),
    drivers: refuse,
    groups: () => next(pages.groups),
    trips: refuse,
    latestTelemetry: refuse,
    telemetryHistory: refuse,
    faults: () => next(pages.faults),
  };
}

function recordingContext(adapter: ProviderAdapter) {
  const published: IngestBatchV1[] = [];
  const skipped: SkippedRecord[] = [];
  const ctx: FetchContext = {
    adapter,
    provider: 'samsara',
    proceed: () => Promise.resolve(true),
    held: () => true,
    record: () => Promise.resolve(true),
    publish: (batch) => {
      published.push(batch);
      return Promise.resolve();
    },
    saveCursor: () => Promise.resolve(),
    skipped: (records) => skipped.push(...records),
  };
  return { ctx, published, skipped };
}

describe('skipped records in collector jobs', () => {
  // Mutation tried: dropping `skipped` in onlyModel (or not calling ctx.skipped in `fetched`) fails the first test.
  it('hands a page\'s skipped records to the context and still publishes every other record of the page', async () => {
    const skippedRecord: SkippedRecord = { sourceId: '281474976710659', reason: 'faultCodes.oem code without codeIdentifier' };
    const adapter = adapterServing({
      faults: [
        { items: [snapshot('v1')], next: 'page-2', skipped: [skippedRecord] },
        { items: [snapshot('v2')], next: null },
      ],
    });
    const { ctx, published, skipped } = recordingContext(adapter);
    const [job] = groupIntoJobs([unit('1', 'faults', 'v1'), unit('2', 'faults', 'v2')]);
    await runJob(job!, ctx);

    expect(skipped).toEqual([skippedRecord]);
    const records = published.flatMap((b) => (b.kind === 'fault_snapshots' ? b.records.map((r) => r.vehicleSourceId) : []));
    expect(records.sort()).toEqual(['v1', 'v2']);
    // Each unit still ends with its final batch: the skipped record cost no unit its answer.
    expect(published.filter((b) => b.final).map((b) => b.unitId).sort()).toEqual(['1', '2']);
  });

  it('reports skipped records of both lanes of a groupMemberships listing (groups, then vehicles)', async () => {
    const trailer: SkippedRecord = { sourceId: 'bL1', reason: 'deviceType "None": a trailer' };
    const badGroup: SkippedRecord = { sourceId: null, reason: '/tags data.3.id: Invalid input' };
    const adapter = adapterServing({ groups: [{ items: [], next: null, skipped: [badGroup] }], vehicles: [{ items: [], next: null, skipped: [trailer] }] });
    const { ctx, published, skipped } = recordingContext(adapter);
    const [job] = groupIntoJobs([unit('3', 'groupMemberships', 'v1')]);
    await runJob(job!, ctx);
    expect(skipped).toEqual([badGroup, trailer]);
    expect(published.filter((b) => b.final).map((b) => b.unitId)).toEqual(['3']);
  });

  it('calls nothing for pages without skipped records', async () => {
    const adapter = adapterServing({ faults: [{ items: [snapshot('v1')], next: null, skipped: [] }] });
    const { ctx, skipped } = recordingContext(adapter);
    const [job] = groupIntoJobs([unit('4', 'faults', 'v1')]);
    await runJob(job!, ctx);
    expect(skipped).toEqual([]);
  });
});

/**
 * Runaway providers (issue 14, item 2): a provider that answers the same cursor forever, or walks a
 * cycle, fails the unit with provider_response_changed after the repeat instead of fetching
 * without end. Mutation tried: `guard.next(page.next)` removed from runUnit/runFleet — the
 * same-cursor test runs into the adapter's 50,000-call safety stop ("runaway").
 */
describe('runaway provider listings', () => {
  /** An adapter whose vehicles/drivers listing answers `nextOf(call)` forever; stops the test at 50,000 calls. */
  function endless(nextOf: (call: number) => string) {
    let calls = 0;
    const page = (): Promise<Page<never>> => {
      calls += 1;
      if (calls > 50_000) return Promise.reject(new Error('runaway'));
      return Promise.resolve({ items: [], next: nextOf(calls) });
    };
    const adapter: ProviderAdapter = { ...adapterServing({}), vehicles: page, drivers: page };
    return { adapter, calls: () => calls };
  }

  it('fails a per-unit listing that answers the same cursor forever, after the repeat', async () => {
    const { adapter, calls } = endless(() => 'same');
    const [job] = groupIntoJobs([{ ...unit('10', 'drivers', 'v1'), vehicleSourceId: null }]);
    await expect(runJob(job!, recordingContext(adapter).ctx)).rejects.toMatchObject({ name: 'ProviderError', code: 'provider_response_changed' });
    expect(calls()).toBe(2);
    process.stdout.write(`[runaway] same cursor forever: unit failed after ${calls()} provider calls\n`);
  });

  it('fails a fleet listing that walks a cycle of cursors', async () => {
    const { adapter, calls } = endless((call) => `c${call % 3}`);
    const [job] = groupIntoJobs([unit('11', 'vehicles', 'v1'), unit('12', 'vehicles', 'v2')]);
    await expect(runJob(job!, recordingContext(adapter).ctx)).rejects.toMatchObject({ code: 'provider_response_changed' });
    expect(calls()).toBe(4);
  });

  it('fails a listing that hands out fresh cursors past the page cap', async () => {
    const { adapter, calls } = endless((call) => `fresh-${call}`);
    const [job] = groupIntoJobs([{ ...unit('13', 'drivers', 'v1'), vehicleSourceId: null }]);
    const startedAt = Date.now();
    await expect(runJob(job!, recordingContext(adapter).ctx)).rejects.toMatchObject({ code: 'provider_response_changed' });
    expect(calls()).toBe(MAX_PAGES_PER_LISTING);
    process.stdout.write(`[runaway] fresh cursors forever: unit failed at the cap of ${calls()} pages (${Date.now() - startedAt} ms with a local adapter)\n`);
  });

  it('lets a listing that resumes from a saved cursor and ends normally through', async () => {
    const pages: Page<never>[] = [{ items: [], next: 'b' }, { items: [], next: null }];
    const adapter: ProviderAdapter = { ...adapterServing({}), drivers: () => Promise.resolve(pages.shift()!) };
    const [job] = groupIntoJobs([{ ...unit('14', 'drivers', 'v1'), vehicleSourceId: null, providerCursor: 'a' }]);
    await expect(runJob(job!, recordingContext(adapter).ctx)).resolves.toBeUndefined();
  });
});
