/**
 * The outcome of a public sync, told once it committed: `recordSyncOutcome` runs on the transaction
 * that moved the sync to `completed` or `failed` (the last receipt, a collection failure, a
 * rejected batch, a cancel) and writes `events.sync.outcome.<connectionId>` to the outbox, which
 * SyncOutboxRelay publishes after the commit (the gateway's webhook delivery turns it into
 * `sync.completed` / `sync.failed`; docs/webhooks.md). Internal runs (no application) tell nothing:
 * they are not visible through the public API either.
 * Invariant: the event id is nameUuid(sync id, attempt, status) and the outbox ignores a msg_id it
 * holds, so a path that records the same outcome twice adds nothing, and a retried sync's next
 * outcome is a new event.
 */
import { Inject, Injectable } from '@nestjs/common';
import { nameUuid } from '@switchyard/domain';
import { EVENTS, subjectFor, type SyncOutcomeV1 } from '@switchyard/messaging';
import type { Em } from '@switchyard/persistence';
import { OutboxTableRepository, RUNTIME, TableOutboxRelay, type ServiceRuntime } from '@switchyard/service-kit';
import { SyncRepository } from '../db/repositories/sync.repository.js';
import { toSyncRecord } from './sync-record.js';

/** The orchestrator outbox's advisory lock class ("SYOB"). */
const SYNC_OUTBOX_LOCK = 0x53594f42;
const outbox = new OutboxTableRepository(SYNC_OUTBOX_LOCK);
const syncs = new SyncRepository();

/** Writes the sync's outcome to the outbox when it is a public sync that just completed or failed (on the caller's transaction). */
export async function recordSyncOutcome(em: Em, syncId: string): Promise<void> {
  const row = await syncs.byId(em, syncId);
  if (!row || row.origin !== 'api' || !row.applicationId || (row.status !== 'completed' && row.status !== 'failed')) return;
  const event: SyncOutcomeV1 = {
    eventId: nameUuid('sync-outcome', row.id, String(row.attempts), row.status),
    connectionId: row.connectionId,
    applicationId: row.applicationId,
    sync: toSyncRecord(row),
    occurredAt: row.completedAt ?? new Date().toISOString(),
  };
  await outbox.enqueue(em, subjectFor(EVENTS.syncOutcome.subject, row.connectionId), event.eventId, event);
}

/** Publishes the orchestrator's outbox (sync outcomes) after each commit's poll. */
@Injectable()
export class SyncOutboxRelay extends TableOutboxRelay {
  constructor(@Inject(RUNTIME) runtime: ServiceRuntime) {
    super(runtime, { label: 'sync outbox relay', events: [EVENTS.syncOutcome], lockKey: SYNC_OUTBOX_LOCK, batchSize: 100, idlePollMs: 250 });
  }
}
