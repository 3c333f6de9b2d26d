/**
 * Retention of trips (issue 25 item 2; decision 0030): a trip that started more than 400 days ago
 * (HISTORY_RETENTION_DAYS, the horizon of observation history, decision 0025) is deleted, on
 * service-kit's retention schedule (every process, a pass a minute after start, then hourly), in
 * skip-locked chunks of 10,000. Nothing references a trip row. A trip page whose window reaches
 * before the horizon holds what is kept; the catalog's tripHistory gaps say so (the TripPage has no
 * field for a reason, and its `errorCode` means a failed provider fetch).
 */
import { Injectable } from '@nestjs/common';
import { HISTORY_RETENTION_MS } from '@switchyard/contracts';
import type { Orm } from '@switchyard/persistence';
import { pruneInChunks, RetentionService } from '@switchyard/service-kit';
import { TripRetentionRepository } from '../db/repositories/trip-retention.repository.js';

const CHUNK = 10_000;

/** One pass at `now`: deletes the trips that started before `now − 400 days`; returns how many went. */
export function pruneTrips(orm: Orm, now = new Date(), chunk = CHUNK): Promise<number> {
  const before = new Date(now.getTime() - HISTORY_RETENTION_MS);
  const repository = new TripRetentionRepository();
  return pruneInChunks(chunk, (limit) => repository.pruneStartedBefore(orm.em.fork(), before, limit));
}

@Injectable()
export class TripRetention extends RetentionService {
  protected readonly what = 'trips';

  prune(now = new Date()): Promise<number> {
    return pruneTrips(this.runtime.orm, now);
  }
}
