/**
 * Applies one fault batch inside the batch's transaction: lock the connection, load its state,
 * derive occurrences and transitions (fault-derivation.ts), write them set-based, number the
 * transitions with the connection's next sequences and store their `fleet.faults` payloads in the
 * outbox (fault_transition.published_at NULL). Invariant: the transitions a batch produces are
 * committed with it or not at all; a repeated batch never reaches here (the ledger answers it).
 */
import { vehicleId } from '@switchyard/domain';
import { PoisonMessage, faultTransitionV1, type FaultBatchV1, type FaultTransitionV1 } from '@switchyard/messaging';
import type { Em } from '@switchyard/persistence';
import { randomUUID } from 'node:crypto';
import { FaultRepository, type TransitionRow } from '../db/repositories/fault.repository.js';
import { structuredCode } from './fault-codes.js';
import { deriveFromRecords, deriveFromSnapshots } from './fault-derivation.js';

export class FaultIngestService {
  constructor(private readonly repository = new FaultRepository()) {}

  async apply(em: Em, batch: FaultBatchV1): Promise<number> {
    const { connectionId, provider, batchId } = batch;
    for (const record of batch.records) {
      if (record.provider !== provider) throw new PoisonMessage('record_provider_mismatch', `batch ${batchId} carries a ${record.provider} record`);
    }
    await this.repository.lockConnection(em, connectionId);
    const model = batch.kind === 'fault_snapshots' ? 'complete_snapshot' : 'explicit_records';
    const keys = batch.kind === 'fault_records' ? batch.records.map((r) => ({ vehicle: r.vehicleSourceId, key: r.faultKey })) : [];
    const state = await this.repository.loadState(em, connectionId, model, keys);
    const derived = batch.kind === 'fault_snapshots' ? deriveFromSnapshots(state, batch.records) : deriveFromRecords(state, batch.records, batch.fetchedAt, batch.syncId, batch.read?.windowEnd);
    const vehicleIdOf = (sourceId: string) => vehicleId({ connectionId, provider, sourceId });
    await this.repository.writeOccurrences(em, connectionId, provider, vehicleIdOf, derived.changed);
    if (derived.transitions.length > 0) {
      const first = await this.repository.reserveSequences(em, connectionId, derived.transitions.length);
      const rows: TransitionRow[] = derived.transitions.map((d, i) => {
        const id = randomUUID();
        const payload: FaultTransitionV1 = faultTransitionV1.parse({
          transitionId: id,
          sequence: first + i,
          connectionId,
          provider,
          kind: d.kind,
          occurrenceId: d.occurrence.id,
          vehicleId: vehicleIdOf(d.occurrence.vehicleSourceId),
          vehicleSourceId: d.occurrence.vehicleSourceId,
          faultKey: d.occurrence.faultKey,
          code: d.occurrence.code,
          description: d.occurrence.description,
          model: d.occurrence.model,
          observedAt: new Date(d.observedAt).toISOString(),
          clearedBy: d.clearedBy,
          bootstrap: d.bootstrap,
          structured: structuredCode(provider, d.occurrence.faultKey, d.occurrence.occurrenceCount),
        });
        return { id, connection_id: connectionId, sequence: first + i, occurrence_id: d.occurrence.id, kind: d.kind, observed_at: d.observedAt, bootstrap: d.bootstrap, payload };
      });
      await this.repository.insertTransitions(em, rows);
    }
    await this.repository.saveWatch(em, connectionId, derived.watch);
    return batch.records.length;
  }
}
