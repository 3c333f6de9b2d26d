/**
 * `refresh_slot` of migration 0013 as the ORM sees it (for the schema-drift check only; the table
 * is written by the one-statement claim of refresh-slot.repository.ts).
 */
import { defineEntity, p } from '@mikro-orm/postgresql';

export const RefreshSlotEntity = defineEntity({
  name: 'RefreshSlot',
  tableName: 'refresh_slot',
  properties: {
    connectionId: p.uuid().primary(),
    vehicleSourceId: p.text().primary(),
    grantedAt: p.datetime(),
  },
});
