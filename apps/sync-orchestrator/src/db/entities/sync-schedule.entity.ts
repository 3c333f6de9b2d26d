/**
 * `sync_schedule` of migrations 0008 and 0010 as the ORM sees it (schema-drift check only; the
 * table is read and written by the SQL of schedule.repository.ts): one row per connection, claimed
 * by one scheduler process at a time.
 */
import { defineEntity, p } from '@mikro-orm/postgresql';

export const SyncScheduleEntity = defineEntity({
  name: 'SyncSchedule',
  tableName: 'sync_schedule',
  properties: {
    connectionId: p.uuid().primary(),
    nextDueAt: p.datetime(),
    coveredUntil: p.datetime().nullable(),
    lastSyncId: p.text().nullable(),
    /** Migration 0010: every run (part) of the last window created; lastSyncId is the first. */
    lastSyncIds: p.array().nullable(),
    lastDecision: p.text().nullable(),
    lastDecidedAt: p.datetime().nullable(),
  },
  indexes: [{ name: 'sync_schedule_due_idx', properties: ['nextDueAt'] }],
});
