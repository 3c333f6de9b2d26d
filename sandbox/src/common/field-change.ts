/**
 * The `field_change` and `truncated_json` scenarios: response-shape faults applied after the
 * provider handler (a field renamed, retyped or set to a literal). `field` is a dotted path inside each record (`vehicle.vin` for Motive's wrapped
 * records, `obdOdometerMeters.value` for a Samsara stat); records without the field are untouched.
 * Records are edited in place: handlers build fresh bodies per request.
 */
import type { Scenario } from './scenario.types.js';

type FieldChange = Extract<Scenario, { kind: 'field_change' }>;

function isObject(x: unknown): x is Record<string, unknown> {
  return typeof x === 'object' && x !== null && !Array.isArray(x);
}

function retype(value: unknown, to: NonNullable<FieldChange['retypeTo']>): unknown {
  if (to === 'null') return null;
  if (to === 'string') return typeof value === 'string' ? value : JSON.stringify(value);
  const n = typeof value === 'number' ? value : Number(value);
  // A non-numeric string retyped to number becomes its length: still a number, visibly wrong.
  return Number.isFinite(n) ? n : typeof value === 'string' ? value.length : 1;
}

export function applyFieldChange(records: unknown[], change: FieldChange): number {
  const path = change.field.split('.');
  const last = path[path.length - 1] as string;
  let changed = 0;
  for (const record of records) {
    let parent: unknown = record;
    for (const key of path.slice(0, -1)) parent = isObject(parent) ? parent[key] : undefined;
    if (!isObject(parent) || !(last in parent)) continue;
    const current = change.setTo !== undefined ? change.setTo : parent[last];
    const value = change.retypeTo ? retype(current, change.retypeTo) : current;
    if (change.renameTo !== undefined && change.renameTo !== last) {
      delete parent[last];
      parent[change.renameTo] = value;
    } else {
      parent[last] = value;
    }
    changed++;
  }
  return changed;
}

/** The first half of the serialized body's bytes: never valid JSON for a non-trivial body. */
export function truncateBody(serialized: Buffer): Buffer {
  return serialized.subarray(0, Math.floor(serialized.length / 2));
}
