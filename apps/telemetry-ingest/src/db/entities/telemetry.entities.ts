/**
 * The tables of migrations 0002 and 0003 as the ORM sees them (written only with set-based SQL by
 * ObservationRepository). `observations` is declared without `partitionBy`: MikroORM then leaves
 * its partitioning unmanaged, so the partitions the consumer creates on demand are not drift.
 */
import { defineEntity, p } from '@mikro-orm/postgresql';

const reading = () => ({
  connectionId: p.uuid().primary(),
  vehicleId: p.text().primary(),
  metric: p.text().primary(),
  provider: p.text(),
  vehicleSourceId: p.text(),
  value: p.json(),
  valueNum: p.double().nullable(),
  units: p.json().nullable(),
  fetchedAt: p.datetime(),
  batchId: p.text(),
});

export const ObservationEntity = defineEntity({
  name: 'Observation',
  tableName: 'observations',
  properties: {
    ...reading(),
    observedAt: p.datetime().primary(),
    source: p.text().primary(),
    // Migration 0003: the public HistoryPoint sequence (from observation_seq) and the inserting
    // transaction. Since 0007 seq is the column default nextval('observation_seq'), which MikroORM
    // reads back as an autoincrement column (its schema diff compares the flag, not the text).
    seq: p.bigint().autoincrement(),
    createdXid: p.bigint().defaultRaw('((pg_current_xact_id())::text)::bigint'),
  },
});

export const LatestReadingEntity = defineEntity({
  name: 'LatestReading',
  tableName: 'latest_readings',
  properties: { ...reading(), observedAt: p.datetime(), source: p.text(), updatedAt: p.datetime() },
});


/** Migration 0003: when faults of a vehicle were last observed (projection of fault-feed's events.faults.observed). */
export const VehicleFaultObservationEntity = defineEntity({
  name: 'VehicleFaultObservation',
  tableName: 'vehicle_fault_observation',
  properties: {
    connectionId: p.uuid().primary(),
    vehicleId: p.text().primary(),
    observedAt: p.datetime(),
    updatedAt: p.datetime().defaultRaw('now()'),
  },
});

/** Migration 0004: usage rollups (written only with set-based SQL by UsageRollupRepository). */
const usageKey = () => ({ connectionId: p.uuid().primary(), vehicleId: p.text().primary(), metric: p.text().primary(), series: p.text().primary() });

export const UsageSlotEntity = defineEntity({
  name: 'UsageSlot',
  tableName: 'usage_slot',
  properties: { ...usageKey(), slotStart: p.datetime().primary(), amount: p.double(), coverageMs: p.double(), samples: p.integer(), sources: p.json() },
  // Migration 0005: a vehicle's slots by time (reports' window reads, rebuild deletes).
  indexes: [{ name: 'usage_slot_vehicle_time', properties: ['connectionId', 'vehicleId', 'slotStart'] }],
});

export const UsageExcludedIntervalEntity = defineEntity({
  name: 'UsageExcludedInterval',
  tableName: 'usage_excluded_interval',
  properties: { ...usageKey(), startAt: p.datetime().primary(), endAt: p.datetime(), reason: p.text() },
});

export const UsageRollupEpochEntity = defineEntity({
  name: 'UsageRollupEpoch',
  tableName: 'usage_rollup_epoch',
  properties: { id: p.smallint().primary().autoincrement(false), startedAt: p.datetime() },
});
