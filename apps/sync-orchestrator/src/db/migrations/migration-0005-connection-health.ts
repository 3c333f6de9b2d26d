/**
 * `connection_health_seq`: the `sequence` of every connection-health observation the collectors
 * publish (events.connection.health.<connectionId>). One sequence in the orchestrator's schema is
 * shared by every orchestrator process, so two observations never carry the same number and the
 * message id built from it (`health:<connectionId>:<sequence>`) is unique per observation.
 */
import { SchemaMigration } from '@switchyard/persistence';

export class Migration0005ConnectionHealth extends SchemaMigration {
  override up(): void {
    this.addSql(`create sequence ${this.table('connection_health_seq')};`);
  }
}
