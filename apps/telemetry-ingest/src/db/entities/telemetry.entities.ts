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
    // Migration 0003: the public HistoryPoint sequence (from observation_seq) and the inserting transaction.
    seq: p.bigint(),
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
