/**
 * `events.connection.config.<connectionId>` v1: the full configuration of one connection, published
 * by the gateway on every change and consumed by the contexts that collect or serve its data.
 * Invariant: the message is a whole snapshot, never a patch, and `revision` is strictly increasing
 * per connection, so a consumer keeps the highest revision it has seen and ignores older ones
 * (JetStream may redeliver an older snapshot after a newer one).
 */
import { z } from 'zod';

/** Spec limit: at most 100 approved group ids for group inventory. */
export const MAX_APPROVED_GROUP_IDS = 100;
/** Spec limit: 1 to 4 unique selected signals; an empty list means none selected yet. */
export const MAX_SELECTED_SIGNALS = 4;

export const providerV1 = z.enum(['samsara', 'motive', 'geotab']);
export const signalV1 = z.enum(['odometer', 'faults', 'engineHours', 'location']);

const uniqueItems = <T>(items: readonly T[]): boolean => new Set(items).size === items.length;

export const connectionConfigV1 = z
  .object({
    connectionId: z.uuid(),
    provider: providerV1,
    environment: z.enum(['sandbox', 'production']),
    status: z.enum(['active', 'paused', 'disconnected']),
    unifiedCollection: z.boolean(),
    purposes: z.object({ vehicles: z.boolean(), groupMemberships: z.boolean(), trips: z.boolean() }).strict(),
    /** Source (provider) vehicle ids the customer approved. */
    approvedVehicleIds: z.array(z.string().min(1)),
    includeVehicleIds: z.array(z.string().min(1)),
    excludeVehicleIds: z.array(z.string().min(1)),
    includeStatuses: z.array(z.enum(['active', 'inactive'])).refine(uniqueItems, 'items must be unique'),
    optIns: z.object({ groupInventory: z.boolean(), vehicleMetadata: z.boolean(), extendedTelemetry: z.boolean() }).strict(),
    approvedGroupIds: z.array(z.string().min(1)).max(MAX_APPROVED_GROUP_IDS),
    selectedSignals: z.array(signalV1).max(MAX_SELECTED_SIGNALS).refine(uniqueItems, 'items must be unique'),
    revision: z.number().int().positive(),
    updatedAt: z.iso.datetime({ offset: true }),
  })
  .strict();

export type ConnectionConfigV1 = z.output<typeof connectionConfigV1>;
export type Provider = z.output<typeof providerV1>;
export type Signal = z.output<typeof signalV1>;
