/**
 * The tables of migration 0002 as the ORM sees them (written with set-based SQL by
 * FaultRepository); declared for the schema-drift check, column for column and index for index.
 */
import { defineEntity, p } from '@mikro-orm/postgresql';

export const FaultOccurrenceEntity = defineEntity({
  name: 'FaultOccurrence',
  tableName: 'fault_occurrence',
  properties: {
    id: p.uuid().primary(),
    connectionId: p.uuid(),
    provider: p.text(),
    model: p.text(),
    vehicleId: p.text(),
    vehicleSourceId: p.text(),
    faultKey: p.text(),
    code: p.text(),
    description: p.text().nullable(),
    openedAt: p.datetime(),
    lastObservedAt: p.datetime(),
    clearedAt: p.datetime().nullable(),
    clearedBy: p.text().nullable(),
    bootstrap: p.boolean(),
    openSequence: p.bigint().nullable(),
    structured: p.json().nullable(),
  },
  indexes: [
    { name: 'fault_occurrence_open_idx', properties: ['connectionId', 'openSequence'], where: 'cleared_at is null' },
    { name: 'fault_occurrence_key_idx', properties: ['connectionId', 'vehicleSourceId', 'faultKey', 'openedAt'] },
    { name: 'fault_occurrence_vehicle_idx', properties: ['connectionId', 'vehicleId', 'openedAt'] },
  ],
});

export const FaultTransitionEntity = defineEntity({
  name: 'FaultTransition',
  tableName: 'fault_transition',
  properties: {
    id: p.uuid().primary(),
    connectionId: p.uuid(),
    sequence: p.bigint(),
    occurrenceId: p.uuid(),
    kind: p.text(),
    observedAt: p.datetime(),
    bootstrap: p.boolean(),
    payload: p.json(),
    createdAt: p.datetime(),
    publishedAt: p.datetime().nullable(),
  },
  uniques: [{ name: 'fault_transition_sequence_unique', properties: ['connectionId', 'sequence'] }],
  indexes: [{ name: 'fault_transition_unpublished_idx', properties: ['publishedAt'] }],
  checks: [{ name: 'fault_transition_kind_check', expression: "kind in ('opened', 'cleared')" }],
});

export const FaultWatchEntity = defineEntity({
  name: 'FaultWatch',
  tableName: 'fault_watch',
  properties: { connectionId: p.uuid().primary(), scope: p.text().primary(), lastObservedAt: p.datetime() },
});

export const FaultSequenceEntity = defineEntity({
  name: 'FaultSequence',
  tableName: 'fault_sequence',
  properties: { connectionId: p.uuid().primary(), lastSequence: p.bigint() },
});


/** Migration 0003: the highest sequence pruned from the feed per connection. */
export const FaultRetentionEntity = defineEntity({
  name: 'FaultRetention',
  tableName: 'fault_retention',
  properties: { connectionId: p.uuid().primary(), prunedThrough: p.bigint(), prunedAt: p.datetime() },
});

export const FAULT_ENTITIES = [FaultOccurrenceEntity, FaultTransitionEntity, FaultWatchEntity, FaultSequenceEntity, FaultRetentionEntity];
