/**
 * The cases of the one vehicle-visibility rule (decision 0029) that every context serving vehicle
 * data must answer alike — written once here and run by the telemetry reads
 * (apps/telemetry-ingest/test/telemetry-read.int-spec.ts) and the fault reads
 * (apps/fault-feed/test/fault-reads.int-spec.ts) through their own read paths on PostgreSQL and
 * NATS. `before` says how the two contexts answered before the decision, where they disagreed.
 * Every case's configuration has a visibility rule, so `connect` publishes no set by itself: the
 * directory's set is exactly `hidden` (sequence 2), or has not arrived when `hidden` is absent.
 */
import { vehicleId, type VehicleVisibility } from '@switchyard/domain';
import type { ConnectionConfigV1 } from '@switchyard/messaging';
import type { IngestHarness } from './ingest-harness.js';

export interface VisibilityCase {
  name: string;
  before: string;
  config: Partial<ConnectionConfigV1>;
  /** The directory's hidden set by provider id; absent: not arrived yet. */
  hidden?: readonly { sourceId: string; visibility: Exclude<VehicleVisibility, 'visible'> }[];
  /** Provider id → shown (every vehicle has data in the context under test). */
  shown: Readonly<Record<string, boolean>>;
}

export const VISIBILITY_CASES: readonly VisibilityCase[] = [
  {
    name: 'status filter, the directory set not arrived yet: hidden (fail closed)',
    before: 'telemetry hid it (fail closed); faults showed every vehicle until the set arrived',
    config: { includeStatuses: ['active'] },
    shown: { v1: false, v2: false },
  },
  {
    name: 'lists only, the set not arrived yet: hidden too (every context waits for the directory)',
    before: 'telemetry applied the lists and showed v2; faults showed both',
    config: { excludeVehicleIds: ['v1'] },
    shown: { v1: false, v2: false },
  },
  {
    name: 'approved but hidden by status: hidden',
    before: 'both hid it once the set arrived; before it, faults showed it',
    config: { approvedVehicleIds: ['v1', 'v2'], includeStatuses: ['active'] },
    hidden: [{ sourceId: 'v1', visibility: 'hidden_by_status' }],
    shown: { v1: false, v2: true },
  },
  {
    name: 'never stored by the directory, the set arrived: in no set, so shown (decision 0029: the open gap)',
    before: 'both showed it',
    config: { includeStatuses: ['active'] },
    hidden: [],
    shown: { v1: true, v2: true },
  },
  {
    name: 'after the set arrives: what it lists is hidden, the rest shown',
    before: 'both answered so',
    config: { includeStatuses: ['active'] },
    hidden: [{ sourceId: 'v2', visibility: 'hidden_by_status' }],
    shown: { v1: true, v2: false },
  },
  {
    name: 'excluded by the held configuration before the directory set lists it: hidden at once',
    before: 'telemetry hid it; faults showed it until the directory recomputed',
    config: { excludeVehicleIds: ['v1'] },
    hidden: [],
    shown: { v1: false, v2: true },
  },
];

/** Configures a fresh connection as the case says and delivers its set; returns the connection id. */
export async function arrangeVisibilityCase(x: IngestHarness, c: VisibilityCase): Promise<string> {
  const { connectionId, provider } = await x.connect(c.config);
  if (c.hidden) {
    const hidden = c.hidden.map((h) => ({ vehicleId: vehicleId({ connectionId, provider, sourceId: h.sourceId }), ...h }));
    await x.publishVisibility({ connectionId, sequence: '2', configRevision: 1, computedAt: new Date().toISOString(), hidden });
  }
  return connectionId;
}
