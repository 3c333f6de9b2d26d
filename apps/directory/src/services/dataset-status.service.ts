/**
 * The status of one stored dataset (vehicles, drivers, groups, trips) of one connection — the
 * one answer every directory read reports as {status, fetchedAt, capturedAt, publishedAt, errorCode}:
 * - `degraded` (with the provider's errorCode) while the newest core-scope connection-health
 *   observation OF THIS DATASET is a failure — stored data is still served. Health is per
 *   dataset: each observation names the datasets its collector job feeds (a refused trips fetch
 *   degrades trips, not vehicles; telemetry and fault work none), and an observation from a
 *   publisher that names none counts for every dataset of the connection (the old meaning);
 *   a dataset failing before its first batch is `degraded` too: the reason beats `pending`;
 * - `pending` before the first committed batch of the dataset;
 * - `stale` when the newest committed batch was fetched more than DATASET_FRESHNESS_S ago
 *   (3 × the five-minute scheduler window: a missed window is normal, three are not);
 * - `available` otherwise.
 * fetchedAt = provider fetch time of the newest committed batch; capturedAt = provider fetch time of
 * the last final page (the last complete pass); publishedAt = when the directory committed the
 * newest batch. Resources whose status enum lacks a value map it themselves (a TripPage has no
 * `stale`: its data is `available` and publishedAt says how old).
 */
import { SCHEDULER_WINDOW_S } from '@switchyard/contracts';
import type { DatasetStatusV1, DirectoryDataset } from '@switchyard/messaging';
import type { Em } from '@switchyard/persistence';
import { DatasetStatusRepository, type DatasetStatusRow } from '../db/repositories/dataset-status.repository.js';

export const DATASET_FRESHNESS_S = 3 * SCHEDULER_WINDOW_S;

export function deriveDatasetStatus(row: DatasetStatusRow, nowMs: number): DatasetStatusV1 {
  const times = { fetchedAt: row.fetched_at, capturedAt: row.captured_at, publishedAt: row.published_at };
  if (row.failing) return { status: 'degraded', ...times, errorCode: row.error_code };
  if (row.published_at === null || row.fetched_at === null) return { status: 'pending', ...times, errorCode: null };
  const stale = nowMs - Date.parse(row.fetched_at) > DATASET_FRESHNESS_S * 1000;
  return { status: stale ? 'stale' : 'available', ...times, errorCode: null };
}

export class DatasetStatusService {
  constructor(
    private readonly repository = new DatasetStatusRepository(),
    private readonly now: () => number = Date.now,
  ) {}

  async status(em: Em, connectionId: string, dataset: DirectoryDataset): Promise<DatasetStatusV1> {
    return deriveDatasetStatus(await this.repository.read(em, connectionId, dataset), this.now());
  }

  /**
   * The status of a dataset served from one complete pass (the driver directory, decision 0014):
   * the connection's health as above, the three times from the pass — its newest page, its final
   * page, its completion — and `pending` while no pass completed.
   */
  async ofPass(em: Em, connectionId: string, dataset: DirectoryDataset, pass: { fetched_at: string; captured_at: string; published_at: string } | undefined): Promise<DatasetStatusV1> {
    const row = await this.repository.read(em, connectionId, dataset);
    return deriveDatasetStatus({ ...row, fetched_at: pass?.fetched_at ?? null, captured_at: pass?.captured_at ?? null, published_at: pass?.published_at ?? null }, this.now());
  }
}
