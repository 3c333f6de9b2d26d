/**
 * The tables of migration 0002 as the ORM sees them (written only with set-based SQL by
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
  properties: { ...reading(), observedAt: p.datetime().primary(), source: p.text().primary() },
});

export const LatestReadingEntity = defineEntity({
  name: 'LatestReading',
  tableName: 'latest_readings',
  properties: { ...reading(), observedAt: p.datetime(), source: p.text(), updatedAt: p.datetime() },
});
