/**
 * The ingest ledger by connection, for the directory's reads of it: TripPage
 * coverage.completedUnits (every trips page) and a vehicle's roster position (every metadata
 * read) select one connection's committed batches of one kind, and the ledger's only index was
 * `committed_at` (for pruning), so each read scanned the whole ledger — every connection, 7 days.
 * (connection_id, kind, fetched_at) turns both into one range of the connection's batches of that
 * kind, read newest first for the roster. Numbered 0010 so no other branch's next number collides.
 */
import { SchemaMigration } from '@switchyard/persistence';

export class Migration0010LedgerReadIndex extends SchemaMigration {
  override up(): void {
    this.addSql(`create index ingest_batch_connection_idx on ${this.table('ingest_batch')} (connection_id, kind, fetched_at);`);
  }
}
