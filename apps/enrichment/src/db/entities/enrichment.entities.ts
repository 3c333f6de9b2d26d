/** The enrichment tables as the ORM sees them (DDL in migration 0001; the SQL is hand-written in db/repositories). */
import { defineEntity, p } from '@mikro-orm/postgresql';

export const EnrichmentVehicleEntity = defineEntity({
  name: 'EnrichmentVehicle',
  tableName: 'enrichment_vehicle',
  properties: {
    vehicleId: p.text().primary(),
    connectionId: p.uuid(),
    vin: p.text().nullable(),
    vinSequence: p.bigint(),
    vinChangedAt: p.datetime(),
    receivedAt: p.datetime().defaultRaw('now()'),
  },
});

export const EnrichmentProductEntity = defineEntity({
  name: 'EnrichmentProduct',
  tableName: 'enrichment_product',
  properties: {
    vehicleId: p.text().primary(),
    product: p.text().primary(),
    vin: p.text().nullable(),
    status: p.text(),
    data: p.json().nullable(),
    source: p.text(),
    adapterVersion: p.text().nullable(),
    fetchedAt: p.datetime().nullable(),
    errorCode: p.text().nullable(),
    dueAt: p.datetime().nullable(),
    attempts: p.integer().default(0),
    updatedAt: p.datetime().defaultRaw('now()'),
  },
  indexes: [{ name: 'enrichment_product_due_idx', properties: ['dueAt'], where: 'due_at is not null' }],
});

export const VendorCacheEntity = defineEntity({
  name: 'VendorCache',
  tableName: 'vendor_cache',
  properties: {
    vin: p.text().primary(),
    product: p.text().primary(),
    status: p.text(),
    data: p.json().nullable(),
    adapterVersion: p.text(),
    fetchedAt: p.datetime(),
    expiresAt: p.datetime(),
  },
});

export const VendorBudgetEntity = defineEntity({
  name: 'VendorBudget',
  tableName: 'vendor_budget',
  properties: {
    account: p.text().primary(),
    tokens: p.double(),
    refilledAt: p.datetime(),
  },
});

export const ENRICHMENT_ENTITIES = [EnrichmentVehicleEntity, EnrichmentProductEntity, VendorCacheEntity, VendorBudgetEntity];
