import { describe, expect, it } from '@jest/globals';
import { hasVisibilityRules, type VisibilityRules } from './vehicle-visibility.js';

// The rule's own cases run on its SQL (apps/directory test/vehicle-visibility.repository.int-spec.ts).
const none: VisibilityRules = { includeVehicleIds: [], excludeVehicleIds: [], includeStatuses: [] };

describe('hasVisibilityRules', () => {
  it('is false when no rule is set, true when any list is non-empty', () => {
    expect(hasVisibilityRules(none)).toBe(false);
    expect(hasVisibilityRules({ ...none, includeVehicleIds: ['a'], includeStatuses: ['active'] })).toBe(true);
    expect(hasVisibilityRules({ ...none, excludeVehicleIds: ['x'] })).toBe(true);
    expect(hasVisibilityRules({ ...none, includeStatuses: ['active'] })).toBe(true);
  });
});
