/**
 * `fault_occurrence.structured`: the code's structure (J1939 SPN/FMI/source address, OBD-II DTC
 * and list, Geotab diagnostic/failure mode/controller ids; services/fault-codes.ts), written with
 * each new occurrence and carried in its transitions' `fleet.faults` payloads. Null when the code
 * has none; occurrences opened before this migration keep null (the key still holds the structure).
 */
import { SchemaMigration } from '@switchyard/persistence';

export class Migration0004FaultStructuredCode extends SchemaMigration {
  override up(): void {
    this.addSql(`alter table ${this.schema}.fault_occurrence add column structured jsonb null;`);
  }
}
