/**
 * `observations.seq` takes its number from `observation_seq` as a column default (migration 0003
 * drew it in the ingest statement), so the ingest can COPY a batch's history straight into the
 * partitioned table — the default of the table COPY names (the parent) is the one applied to a
 * routed row — instead of COPYing into a stage and inserting from it (decision 0038). Existing
 * rows keep their numbers; a number is still drawn once per stored row and never reused.
 */
import { SchemaMigration } from '@switchyard/persistence';

export class Migration0007ObservationSeqDefault extends SchemaMigration {
  override up(): void {
    this.addSql(`alter table ${this.table('observations')} alter column seq set default nextval('${this.schema}.observation_seq');`);
  }
}
