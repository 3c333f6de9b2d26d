import { describe, expect, it } from '@jest/globals';
import type { FaultSnapshot, Observation, TelemetryMetric } from '@switchyard/domain';
import type { IngestBatchV1 } from '@switchyard/messaging';
import { capabilitiesFor, ProviderError, type Page, type ProviderAdapter, type SkippedRecord } from '@switchyard/providers';
import type { LeasedUnit } from '../db/repositories/unit-lease.repository.js';
import { groupIntoJobs } from './collector-jobs.js';
import { MAX_PAGES_PER_LISTING, runJob, type FetchContext } from './purpose-fetchers.js';

const CONNECTION = '0b9f3c1e-2f4a-4d7e-9b1c-3a2e5f6d7c8b';
const SYNC = 'sync_01JD3Y7Q8ZK5V2N4R6T8W0X2Y4';
const FETCHED = '2026-01-01T03:00:00.000Z';

function unit(id: string, purpose: LeasedUnit['purpose'], vehicle: string, overrides: Partial<LeasedUnit> = {}): LeasedUnit {
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
    ...overrides,
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

function recordingContext(adapter: ProviderAdapter, extendedFailed: (error: unknown) => boolean = () => false, firstFaultPass = false) {
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
    extendedFailed,
    firstFaultPass: () => Promise.resolve(firstFaultPass),
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
 * Explicit fault records (Geotab): the connection's first fault pass reads 7 days back from the
 * window's end (issue 23: a fault active before a five-minute first window has no record in it),
 * later passes their window only; every batch says which vehicle's read it belongs to and up to
 * when, also the empty final batch of a vehicle without records.
 * mutation: the look-back removed from runFaults → the first pass asks from the window's start: the first test fails.
 * mutation: no `read` in pageBatches → the second expectation of the first test fails.
 */
describe('explicit fault records', () => {
  const windowEnd = '2026-01-01T03:00:00.000Z';
  const windowStart = '2026-01-01T02:55:00.000Z';
  const geotabUnit = (id: string, vehicle: string): LeasedUnit => ({ ...unit(id, 'faults', vehicle), windowStart, windowEnd });
  const record = { model: 'explicit_records', provider: 'geotab', sourceId: 'bF1', vehicleSourceId: 'b1', faultKey: 'b1|aObdP0420|NoFailureModeId|ControllerObdPowertrainId', code: 'P0420', description: null, observedAt: '2025-12-30T07:00:00.000Z', providerState: 'Active', dismissedAt: null, fetchedAt: FETCHED } as const;
  const geotab = (asked: { from?: string; to?: string }[]): ProviderAdapter => ({
    ...adapterServing({}),
    provider: 'geotab',
    capabilities: capabilitiesFor('geotab'),
    faults: (query) => {
      asked.push({ from: query.from, to: query.to });
      return Promise.resolve({ items: [record], next: null });
    },
  });

  it.each([
    [true, '2025-12-25T03:00:00.000Z'],
    [false, windowStart],
  ])('first fault pass %s → reads from %s', async (first, from) => {
    const asked: { from?: string; to?: string }[] = [];
    const { ctx, published } = recordingContext(geotab(asked), undefined, first);
    const [job] = groupIntoJobs([geotabUnit('5', 'b1'), geotabUnit('6', 'b2')]);
    await runJob(job!, ctx);
    expect(asked).toEqual([{ from, to: windowEnd }]);
    expect(published.map((b) => [b.unitId, b.kind === 'fault_records' ? b.read : undefined, b.records.length, b.final])).toEqual([
      ['5', { vehicleSourceId: 'b1', windowEnd }, 1, true],
      ['6', { vehicleSourceId: 'b2', windowEnd }, 0, true],
    ]);
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

/**
 * Telemetry in two lanes (telemetry-lanes.ts): core metrics, then the extended ones, each its own
 * provider call inside one cursor. Mutations tried: laneListing without its catch (a refusal thrown
 * like any failure) fails "a refusal of the extended lane"; telemetryMetricsFor back to selected
 * signals only (issue 31) fails "asks the core metrics, then every covered optional metric".
 */
describe('telemetry lanes', () => {
  const reading = (vehicleSourceId: string, metric: 'odometer' | 'speed'): Observation =>
    metric === 'odometer'
      ? { provider: 'samsara', vehicleSourceId, metric, value: { meters: 1000 }, source: 'samsara:obdOdometerMeters', observedAt: FETCHED, fetchedAt: FETCHED }
      : { provider: 'samsara', vehicleSourceId, metric, value: { value: 12.5 }, source: 'samsara:gps.speedMilesPerHour', observedAt: FETCHED, fetchedAt: FETCHED };
  const optedIn = { signals: ['odometer', 'location', 'faults'], extendedTelemetry: true };
  /** An adapter answering latest telemetry by lane (the extended lane by `extended`) and recording every call's metrics and cursor. */
  function telemetryAdapter(extended: () => Promise<Page<Observation>>) {
    const calls: { metrics: readonly TelemetryMetric[]; cursor: string | null | undefined }[] = [];
    const answer = (query: { metrics: readonly TelemetryMetric[]; cursor?: string | null }): Promise<Page<Observation>> => {
      calls.push({ metrics: query.metrics, cursor: query.cursor });
      if (query.metrics.includes('odometer')) return Promise.resolve(query.cursor ? { items: [reading('v2', 'odometer')], next: null } : { items: [reading('v1', 'odometer')], next: 'core-2' });
      return extended();
    };
    return { adapter: { ...adapterServing({}), latestTelemetry: answer, telemetryHistory: answer }, calls };
  }

  it('asks the core metrics, then every covered optional metric, and ends each unit with the last lane', async () => {
    const { adapter, calls } = telemetryAdapter(() => Promise.resolve({ items: [reading('v1', 'speed')], next: null }));
    const { ctx, published } = recordingContext(adapter);
    const [job] = groupIntoJobs([unit('20', 'telemetryLatest', 'v1', optedIn), unit('21', 'telemetryLatest', 'v2', optedIn)]);
    await runJob(job!, ctx);
    // Samsara supports every optional metric but engineHours, which is a signal not selected here.
    expect(calls.map((c) => [c.metrics, c.cursor])).toEqual([
      [['location', 'odometer'], null],
      [['location', 'odometer'], 'core-2'],
      [['totalIdleTime', 'speed', 'heading', 'fuelPercent', 'batteryVoltage', 'engineState'], null],
    ]);
    const observations = published.flatMap((b) => (b.kind === 'observations' ? b.records.map((r) => `${r.vehicleSourceId}:${r.metric}`) : []));
    expect(observations.sort()).toEqual(['v1:odometer', 'v1:speed', 'v2:odometer']);
    // The final batches come with the extended lane's last page, one per unit.
    const finals = published.filter((b) => b.final);
    expect(finals.map((b) => b.unitId).sort()).toEqual(['20', '21']);
    expect(finals.every((b) => b.providerCursor === null)).toBe(true);
  });

  it('without the opt-in asks the core lane only', async () => {
    const { adapter, calls } = telemetryAdapter(() => Promise.reject(new Error('extended metrics asked without the opt-in')));
    const [job] = groupIntoJobs([unit('22', 'telemetryHistory', 'v1', { ...optedIn, extendedTelemetry: false, windowStart: FETCHED, windowEnd: '2026-01-01T04:00:00.000Z' })]);
    await runJob(job!, recordingContext(adapter).ctx);
    expect(calls.map((c) => c.metrics)).toEqual([
      ['location', 'odometer'],
      ['location', 'odometer'],
    ]);
  });

  it('a refusal of the extended lane ends the listing: the core readings are published and each unit still gets its final batch', async () => {
    const refusal = new ProviderError('provider_scope_mismatch', { status: 403 });
    const { adapter } = telemetryAdapter(() => Promise.reject(refusal));
    const seen: unknown[] = [];
    const { ctx, published } = recordingContext(adapter, (error) => seen.push(error) > 0);
    const [job] = groupIntoJobs([unit('23', 'telemetryLatest', 'v1', optedIn), unit('24', 'telemetryLatest', 'v2', optedIn)]);
    await expect(runJob(job!, ctx)).resolves.toBeUndefined();
    expect(seen).toEqual([refusal]);
    expect(published.flatMap((b) => (b.kind === 'observations' ? b.records.map((r) => r.metric) : []))).toEqual(['odometer', 'odometer']);
    expect(published.filter((b) => b.final).map((b) => b.unitId).sort()).toEqual(['23', '24']);
  });

  it('a failure of the extended lane that is not absorbed is thrown, and the re-leased unit resumes in the extended lane', async () => {
    const outage = new ProviderError('provider_unavailable', { status: 503 });
    const saved: (string | null)[] = [];
    const { adapter, calls } = telemetryAdapter(() => Promise.reject(outage));
    const first = recordingContext(adapter);
    const history = { ...optedIn, windowStart: FETCHED, windowEnd: '2026-01-01T04:00:00.000Z' };
    const [job] = groupIntoJobs([unit('25', 'telemetryHistory', 'v1', history)]);
    await expect(runJob(job!, { ...first.ctx, saveCursor: (_u, cursor) => Promise.resolve(void saved.push(cursor)) })).rejects.toBe(outage);
    expect(first.published.some((b) => b.final)).toBe(false);
    // Re-leased with the cursor saved last: only the extended lane is asked again.
    calls.length = 0;
    const [again] = groupIntoJobs([unit('25', 'telemetryHistory', 'v1', { ...history, providerCursor: saved.at(-1)! })]);
    await expect(runJob(again!, recordingContext(adapter).ctx)).rejects.toBe(outage);
    expect(calls.map((c) => c.metrics.includes('odometer'))).toEqual([false]);
  });
});
