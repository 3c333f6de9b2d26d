/**
 * Loads the recorded-shape Samsara payloads under fixtures/samsara/<resource>/{ok,not-ok}/ and names
 * the schema each resource is validated with. Shared by the fixture and mapper specs.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { z } from 'zod';
import {
  samsaraDriverSchema,
  samsaraLegacyTripsResponseSchema,
  samsaraStatsSeriesItemSchema,
  samsaraStatsSnapshotItemSchema,
  samsaraStreamTripSchema,
  samsaraTagSchema,
  samsaraVehicleSchema,
} from '../src/samsara/samsara.schemas.js';

const root = path.join(import.meta.dirname, 'fixtures', 'samsara');

/** Item schema of each `{data, pagination}` resource; legacy-trips is a whole-body schema. */
export const SAMSARA_FIXTURE_SCHEMAS = {
  vehicles: samsaraVehicleSchema,
  drivers: samsaraDriverSchema,
  tags: samsaraTagSchema,
  'stats-snapshot': samsaraStatsSnapshotItemSchema,
  'stats-history': samsaraStatsSeriesItemSchema,
  'trips-stream': samsaraStreamTripSchema,
} as const satisfies Record<string, z.ZodType>;
export const SAMSARA_LEGACY_TRIPS_SCHEMA = samsaraLegacyTripsResponseSchema;

export type SamsaraFixtureResource = keyof typeof SAMSARA_FIXTURE_SCHEMAS | 'legacy-trips';

export function fixtureNames(resource: SamsaraFixtureResource, kind: 'ok' | 'not-ok'): string[] {
  return readdirSync(path.join(root, resource, kind)).filter((f) => f.endsWith('.json'));
}

export function loadFixture(resource: SamsaraFixtureResource, kind: 'ok' | 'not-ok', name: string): unknown {
  return JSON.parse(readFileSync(path.join(root, resource, kind, name.endsWith('.json') ? name : `${name}.json`), 'utf8')) as unknown;
}
