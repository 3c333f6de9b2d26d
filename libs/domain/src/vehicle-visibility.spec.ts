import { describe, expect, it } from '@jest/globals';
import { hasVisibilityRules, vehicleVisibility, type VisibilityRules } from './vehicle-visibility.js';

const none: VisibilityRules = { includeVehicleIds: [], excludeVehicleIds: [], includeStatuses: [] };

describe('vehicleVisibility', () => {
  it('shows everything when no rule is set', () => {
    expect(vehicleVisibility({ sourceId: 'a', status: null }, none)).toBe('visible');
    expect(hasVisibilityRules(none)).toBe(false);
  });

  it('hides vehicles outside a non-empty include list, before any other rule', () => {
    const rules = { ...none, includeVehicleIds: ['a'], includeStatuses: ['active' as const] };
    expect(vehicleVisibility({ sourceId: 'b', status: 'inactive' }, rules)).toBe('hidden_by_include_list');
    expect(vehicleVisibility({ sourceId: 'a', status: 'active' }, rules)).toBe('visible');
    expect(hasVisibilityRules(rules)).toBe(true);
  });

  it('hides excluded vehicles', () => {
    expect(vehicleVisibility({ sourceId: 'x', status: 'active' }, { ...none, excludeVehicleIds: ['x'] })).toBe('hidden_by_exclude_list');
    expect(vehicleVisibility({ sourceId: 'y', status: 'active' }, { ...none, excludeVehicleIds: ['x'] })).toBe('visible');
  });

  it('hides other and unknown statuses when a status filter is set', () => {
    const rules = { ...none, includeStatuses: ['active' as const] };
    expect(vehicleVisibility({ sourceId: 'a', status: 'inactive' }, rules)).toBe('hidden_by_status');
    expect(vehicleVisibility({ sourceId: 'a', status: null }, rules)).toBe('hidden_by_status');
    expect(vehicleVisibility({ sourceId: 'a', status: 'active' }, rules)).toBe('visible');
  });
});
