/**
 * Retention of the sync history (decision 0030; issue 25 item 2): `sync`, `sync_unit`,
 * `sync_receipt` and `sync_unit_batch` grew without end (~83 units per run of a 24-vehicle
 * connection, a run every 5 minutes: ~24,000 unit rows a day per connection). On service-kit's
 * retention schedule (every process, a pass a minute after start, then hourly) each pass deletes
 * terminal syncs last changed before their period — SYNC_RETENTION_DAYS (30) for public syncs,
 * INTERNAL_RUN_RETENTION_HOURS (24) for internal runs — with their rows, in statements of at most
 * 10,000 units. What stays whatever its age (open syncs, live leases and receipt waits, the syncs a
 * default startFrom or the scheduler chains from) is the repository's predicate.
 */
import { Inject, Injectable } from '@nestjs/common';
import { pruneInChunks, RetentionService, RUNTIME, type ServiceRuntime } from '@switchyard/service-kit';
import type { Orm } from '@switchyard/persistence';
import { loadSyncOrchestratorSettings, SYNC_ORCHESTRATOR_SETTINGS, type SyncOrchestratorSettings, type SyncRetentionSettings } from '../config.js';
import { SyncRetentionRepository } from '../db/repositories/sync-retention.repository.js';

/** Units deleted per statement (with their receipts and batches: a few times as many rows). */
export const SYNC_PRUNE_UNITS = 10_000;

const repository = new SyncRetentionRepository();

/** One pass at `now` on `orm`; returns how many syncs went. `maxUnits` bounds each statement. */
export async function pruneSyncHistory(orm: Orm, settings: SyncRetentionSettings, now = new Date(), maxUnits = SYNC_PRUNE_UNITS): Promise<number> {
  const cutoffs = { publicBefore: new Date(now.getTime() - settings.publicMs), internalBefore: new Date(now.getTime() - settings.internalMs) };
  let syncs = 0;
  // Each statement removes at least one sync while any is due, so "none removed" ends the pass.
  await pruneInChunks(1, async () => {
    const pruned = await repository.prune(orm.em.fork(), cutoffs, maxUnits);
    syncs += pruned.syncs;
    return pruned.syncs > 0 ? 1 : 0;
  });
  return syncs;
}

@Injectable()
export class SyncRetention extends RetentionService {
  protected readonly what = 'sync history';
  private readonly settings: SyncRetentionSettings;

  constructor(@Inject(RUNTIME) runtime: ServiceRuntime, @Inject(SYNC_ORCHESTRATOR_SETTINGS) settings?: SyncOrchestratorSettings) {
    super(runtime);
    this.settings = (settings ?? loadSyncOrchestratorSettings(process.env)).retention;
  }

  prune(now = new Date()): Promise<number> {
    return pruneSyncHistory(this.runtime.orm, this.settings, now);
  }
}
