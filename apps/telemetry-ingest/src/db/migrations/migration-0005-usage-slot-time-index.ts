/**
 * Usage slots by vehicle and time (issue 24 item 8). usage_slot's primary key orders a vehicle's
 * slots by metric and series before time, so a report's read of one window's slots (summedSlots:
 * every metric and series of some vehicles over [innerStart, innerEnd)) and a batch's rebuild
 * delete (every slot of a vehicle in a time range) could only narrow to the vehicle and then
 * filtered all of its slots — with 400 days of retention about 115,000 per vehicle (3 metrics × 96 a
 * day) for a few hundred wanted. This index makes both a time range per vehicle.
 */
import { SchemaMigration } from '@switchyard/persistence';

export class Migration0005UsageSlotTimeIndex extends SchemaMigration {
  override up(): void {
    this.addSql(`create index usage_slot_vehicle_time on ${this.schema}.usage_slot (connection_id, vehicle_id, slot_start);`);
  }
}
