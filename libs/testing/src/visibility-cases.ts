/**
 * The cases of the one vehicle-visibility rule (decision 0029) that every context serving vehicle
 * data must answer alike — written once here and run by the telemetry reads
 * (apps/telemetry-ingest/test/telemetry-read.int-spec.ts) and the fault reads
 * (apps/fault-feed/test/fault-reads.int-spec.ts) through their own read paths on PostgreSQL and
 * NATS. `before` says how the two contexts answered before the decision, where they disagreed.
 * Every case's configuration has a visibility rule, so `connect` publishes no set by itself: the
 * directory's set is exactly `set` (sequence 2), or has not arrived when `set` is absent.
 */
import { vehicleId, type VehicleVisibility } from '@switchyard/domain';
import type { ConnectionConfigV1 } from '@switchyard/messaging';
import type { IngestHarness } from './ingest-harness.js';

export interface VisibilityCase {
  name: string;
  before: string;
  config: Partial<ConnectionConfigV1>;
  /** The directory's set by provider id (`shown`: under a status filter); absent: not arrived yet. */
  set?: { hidden: readonly { sourceId: string; visibility: Exclude<VehicleVisibility, 'visible'> }[]; shown?: readonly string[] };
  /** Provider id → shown (every vehicle has data in the context under test). */
  expect: Readonly<Record<string, boolean>>;
}

export const VISIBILITY_CASES: readonly VisibilityCase[] = [
  {
    name: 'status filter, the directory set not arrived yet: hidden (fail closed)',
    before: 'telemetry hid it (fail closed); faults showed every vehicle until the set arrived',
    config: { includeStatuses: ['active'] },
    expect: { v1: false, v2: false },
  },
  {
    name: 'lists only, the set not arrived yet: hidden too (every context waits for the directory)',
    before: 'telemetry applied the lists and showed v2; faults showed both',
    config: { excludeVehicleIds: ['v1'] },
    expect: { v1: false, v2: false },
  },
  {
    name: 'approved but hidden by status: hidden',
    before: 'both hid it once the set arrived; before it, faults showed it',
    config: { approvedVehicleIds: ['v1', 'v2'], includeStatuses: ['active'] },
    set: { hidden: [{ sourceId: 'v1', visibility: 'hidden_by_status' }], shown: ['v2'] },
    expect: { v1: false, v2: true },
  },
  {
    name: 'never stored by the directory under a status filter: hidden (no status), the stored active one shown',
    before: 'both showed v1 (in no hidden set)',
    config: { includeStatuses: ['active'] },
    set: { hidden: [], shown: ['v2'] },
    expect: { v1: false, v2: true },
  },
  {
    name: 'a status filter and a set without `shown` (computed before the filter): hidden until the directory judged the filter',
    before: 'both showed every vehicle',
    config: { includeStatuses: ['active'] },
    set: { hidden: [] },
    expect: { v1: false, v2: false },
  },
  {
    name: 'after the set arrives: what it hides is hidden, what it shows shown',
    before: 'both answered so',
    config: { includeStatuses: ['active'] },
    set: { hidden: [{ sourceId: 'v2', visibility: 'hidden_by_status' }], shown: ['v1'] },
    expect: { v1: true, v2: false },
  },
  {
    name: 'excluded by the held configuration before the directory set lists it: hidden at once',
    before: 'telemetry hid it; faults showed it until the directory recomputed',
    config: { excludeVehicleIds: ['v1'] },
    set: { hidden: [] },
    expect: { v1: false, v2: true },
  },
];

/** Configures a fresh connection as the case says and delivers its set; returns the connection id. */
export async function arrangeVisibilityCase(x: IngestHarness, c: VisibilityCase): Promise<string> {
  const { connectionId, provider } = await x.connect(c.config);
  if (c.set) {
    const id = (sourceId: string) => vehicleId({ connectionId, provider, sourceId });
    const hidden = c.set.hidden.map((h) => ({ vehicleId: id(h.sourceId), ...h }));
    await x.publishVisibility({ connectionId, sequence: '2', configRevision: 1, computedAt: new Date().toISOString(), hidden, ...(c.set.shown ? { shown: c.set.shown.map(id) } : {}) });
  }
  return connectionId;
}
