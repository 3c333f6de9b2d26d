/**
 * The one vehicle visibility rule (spec 2.6 VehicleEntity.metadata.visibility), used by every
 * stored read that can show a vehicle or something of it: vehicles, trips (a trip of a hidden
 * vehicle is not served, and its vehicle is never expanded), drivers' and groups' expansions.
 *
 * Order of the checks, first match wins:
 * 1. `includeVehicleIds` non-empty and the source id not in it → `hidden_by_include_list`;
 * 2. the source id in `excludeVehicleIds` → `hidden_by_exclude_list`;
 * 3. `includeStatuses` non-empty and the vehicle's status not in it → `hidden_by_status`. A status
 *    that is not known (vehicle not in the roster yet, or its status missing) is NOT in the list:
 *    when a status filter is set, an unknown status hides — a filter must never leak by default;
 * 4. otherwise `visible`.
 * Lists hold provider source vehicle ids (connection configuration), not `vcl_` ids.
 */
import type { ConnectionConfig, RecordStatus } from './connection-config.js';

export const VEHICLE_VISIBILITIES = ['visible', 'hidden_by_include_list', 'hidden_by_exclude_list', 'hidden_by_status'] as const;
export type VehicleVisibility = (typeof VEHICLE_VISIBILITIES)[number];

export type VisibilityRules = Pick<ConnectionConfig, 'includeVehicleIds' | 'excludeVehicleIds' | 'includeStatuses'>;

export function vehicleVisibility(vehicle: { readonly sourceId: string; readonly status: RecordStatus | null }, rules: VisibilityRules): VehicleVisibility {
  if (rules.includeVehicleIds.length > 0 && !rules.includeVehicleIds.includes(vehicle.sourceId)) return 'hidden_by_include_list';
  if (rules.excludeVehicleIds.includes(vehicle.sourceId)) return 'hidden_by_exclude_list';
  if (rules.includeStatuses.length > 0 && (vehicle.status === null || !rules.includeStatuses.includes(vehicle.status))) return 'hidden_by_status';
  return 'visible';
}

/** True when the rules can hide anything (all lists empty: every vehicle is visible, no lookup needed). */
export function hasVisibilityRules(rules: VisibilityRules): boolean {
  return rules.includeVehicleIds.length > 0 || rules.excludeVehicleIds.length > 0 || rules.includeStatuses.length > 0;
}
