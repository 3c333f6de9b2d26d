/**
 * zod schema of `Scenario` for the control API: a PUT body that is not a well-formed scenario list
 * is refused with 400 and the zod issues, so a typo never silently disables a test's fault.
 */
import { z } from 'zod';
import { CATALOG_FAULT_KEYS } from '../fleet/catalog.js';
import { PROVIDER_QUIRKS } from './provider-quirks.js';
import type { Scenario } from './scenario.types.js';

const count = z.number().int().min(1);
const ms = z.number().int();
const matchFilter = { pathPrefix: z.string().min(1).optional(), typeName: z.string().min(1).optional() };

export const scenarioSchema = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('rate_limit_storm'), requests: count, retryAfterSeconds: z.number().min(0) }),
  z.strictObject({ kind: z.literal('server_errors'), requests: count, status: z.union([z.literal(500), z.literal(502), z.literal(503), z.literal(504)]) }),
  z.strictObject({ kind: z.literal('slow'), requests: count, delayMs: z.number().int().min(0), hang: z.boolean().optional() }),
  z.strictObject({ kind: z.literal('truncated_json'), requests: count }),
  z.strictObject({ kind: z.literal('revoke_credential'), afterRequests: z.number().int().min(0) }),
  z.strictObject({ kind: z.literal('missing_permission'), ...matchFilter }),
  z.strictObject({
    kind: z.literal('field_change'),
    ...matchFilter,
    field: z.string().min(1),
    renameTo: z.string().min(1).optional(),
    retypeTo: z.enum(['string', 'number', 'null']).optional(),
    setTo: z.union([z.string(), z.number(), z.boolean(), z.null()]).optional(),
  }),
  z.strictObject({ kind: z.literal('duplicate_and_reorder'), overlap: z.number().int().min(0) }),
  z.strictObject({ kind: z.literal('late_history'), fromMs: ms, toMs: ms, availableAtMs: ms }),
  z.strictObject({ kind: z.literal('odometer_reset'), vehicleIndex: z.number().int().min(0), atMs: ms, toMeters: z.number().min(0) }),
  z.strictObject({ kind: z.literal('device_swap'), vehicleIndex: z.number().int().min(0), atMs: ms }),
  z.strictObject({ kind: z.literal('standing_fault'), vehicleIndex: z.number().int().min(0), fault: z.enum(CATALOG_FAULT_KEYS), openedAtMs: ms, clearedAtMs: ms.optional() }),
  z.strictObject({ kind: z.literal('provider_quirk'), quirk: z.enum(PROVIDER_QUIRKS), vehicleIndexes: z.array(z.number().int().min(0)).min(1).optional() }),
]);

export const scenarioListSchema = z.array(scenarioSchema);

// Compile-time check that the schema and the Scenario type describe the same thing.
type Parsed = z.infer<typeof scenarioSchema>;
const _sameShape: [Parsed extends Scenario ? true : false, Scenario extends Parsed ? true : false] = [true, true];
void _sameShape;
