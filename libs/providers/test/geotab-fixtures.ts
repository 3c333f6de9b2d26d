/**
 * Loads the recorded-shape Geotab payloads under fixtures/geotab/<resource>/{ok,not-ok}/ (whole
 * JSON-RPC bodies: `{result: [...]}` for Get, `{result: {data, toVersion}}` for GetFeed) and names
 * the item schema each resource is validated with.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { z } from 'zod';
import { parseGeotabRows, type GeotabRows } from '../src/geotab/geotab.client.js';
import {
  deviceSchema,
  deviceStatusInfoSchema,
  faultDataSchema,
  groupSchema,
  logRecordSchema,
  statusDataSchema,
  tripSchema,
  userSchema,
} from '../src/geotab/geotab.schemas.js';

const root = path.join(import.meta.dirname, 'fixtures', 'geotab');

export const GEOTAB_FIXTURE_SCHEMAS = {
  device: deviceSchema,
  user: userSchema,
  group: groupSchema,
  trip: tripSchema,
  'log-record': logRecordSchema,
  'status-data': statusDataSchema,
  'device-status-info': deviceStatusInfoSchema,
  'fault-data': faultDataSchema,
} as const satisfies Record<string, z.ZodType>;
export type GeotabFixtureResource = keyof typeof GEOTAB_FIXTURE_SCHEMAS;

export function fixtureNames(resource: GeotabFixtureResource | 'error', kind: 'ok' | 'not-ok'): string[] {
  return readdirSync(path.join(root, resource, kind)).filter((f) => f.endsWith('.json'));
}

export function loadFixture(resource: GeotabFixtureResource | 'error', kind: 'ok' | 'not-ok', name: string): unknown {
  return JSON.parse(readFileSync(path.join(root, resource, kind, name.endsWith('.json') ? name : `${name}.json`), 'utf8')) as unknown;
}

/** The rows of a fixture: `result` (Get) or `result.data` (GetFeed). */
function rawRows(resource: GeotabFixtureResource, kind: 'ok' | 'not-ok', name: string): unknown {
  const body = loadFixture(resource, kind, name) as { result?: unknown };
  const result = body.result as unknown;
  return Array.isArray(result) ? result : (result as { data?: unknown } | undefined)?.data;
}

/** A fixture read as the adapter reads it: record by record (malformed ones in `skipped`). */
export function fixturePage<R extends GeotabFixtureResource>(resource: R, kind: 'ok' | 'not-ok', name: string): GeotabRows<z.output<(typeof GEOTAB_FIXTURE_SCHEMAS)[R]>> {
  return parseGeotabRows(GEOTAB_FIXTURE_SCHEMAS[resource] as z.ZodType, rawRows(resource, kind, name), `fixture:${resource}/${name}`) as GeotabRows<z.output<(typeof GEOTAB_FIXTURE_SCHEMAS)[R]>>;
}

/** The parsed items of a fixture. */
export function fixtureRows<R extends GeotabFixtureResource>(resource: R, kind: 'ok' | 'not-ok', name: string): z.output<(typeof GEOTAB_FIXTURE_SCHEMAS)[R]>[] {
  return fixturePage(resource, kind, name).data;
}
