/**
 * Recorded-shape Motive payloads for the mapper tests: `fixtures/motive/<resource>/{ok,not-ok}/*.json`.
 * `ok` files must parse with the adapter's schema (value-level oddities included: they become
 * invalid/missing fields); `not-ok` files must be refused as `provider_response_changed`.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

const root = path.join(import.meta.dirname, 'fixtures', 'motive');

export const MOTIVE_FIXTURE_RESOURCES = ['vehicles', 'users', 'groups', 'vehicle-locations', 'vehicle-locations-v3', 'driving-periods', 'fault-codes'] as const;
export type MotiveFixtureResource = (typeof MOTIVE_FIXTURE_RESOURCES)[number];

export function motiveFixture(resource: MotiveFixtureResource, kind: 'ok' | 'not-ok', name: string): unknown {
  return JSON.parse(readFileSync(path.join(root, resource, kind, `${name}.json`), 'utf8')) as unknown;
}

export function motiveFixtureNames(resource: MotiveFixtureResource, kind: 'ok' | 'not-ok'): string[] {
  return readdirSync(path.join(root, resource, kind))
    .filter((f) => f.endsWith('.json'))
    .map((f) => f.slice(0, -'.json'.length))
    .sort();
}
