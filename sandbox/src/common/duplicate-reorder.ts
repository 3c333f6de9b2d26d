/**
 * The `duplicate_and_reorder` scenario, applied by provider handlers to their own pagination (the
 * kit cannot know a dialect's page boundaries): a page repeats the last `overlap` records of the
 * previous page and its order is shuffled, deterministically from `seed` (e.g. account + cursor), so
 * a retried page answers identically.
 */
import { Stream, hashString } from '../fleet/prng.js';
import type { Scenario } from './scenario.types.js';

export type DuplicateAndReorder = Extract<Scenario, { kind: 'duplicate_and_reorder' }>;

/** Find the first active scenario of a kind, typed (e.g. `findScenario(ctx.scenarios(), 'duplicate_and_reorder')`). */
export function findScenario<K extends Scenario['kind']>(scenarios: readonly Scenario[], kind: K): Extract<Scenario, { kind: K }> | undefined {
  return scenarios.find((s): s is Extract<Scenario, { kind: K }> => s.kind === kind);
}

/** `previousPageTail`'s last `overlap` records, then the page, shuffled (Fisher-Yates on a seeded stream). */
export function applyDuplicateAndReorder<T>(pageRecords: readonly T[], previousPageTail: readonly T[], scenario: DuplicateAndReorder, seed: string): T[] {
  const overlap = Math.max(0, Math.floor(scenario.overlap));
  const out = [...(overlap > 0 ? previousPageTail.slice(-overlap) : []), ...pageRecords];
  const draw = new Stream(hashString(`duplicate_and_reorder:${seed}`));
  for (let i = out.length - 1; i > 0; i--) {
    const j = draw.int(0, i);
    [out[i], out[j]] = [out[j] as T, out[i] as T];
  }
  return out;
}

/**
 * Offset pagination convenience: the page `all[offset, offset + limit)`, with the scenario applied
 * when given (the tail is taken from the records just before `offset`).
 */
export function pageWithScenario<T>(all: readonly T[], offset: number, limit: number, scenario: DuplicateAndReorder | undefined, seed: string): T[] {
  const page = all.slice(offset, offset + limit);
  if (!scenario) return page;
  return applyDuplicateAndReorder(page, all.slice(Math.max(0, offset - scenario.overlap), offset), scenario, seed);
}
